package webhook

import (
	"crypto/rsa"

	"github.com/paysession/paysession/internal/paysim"
)

type rsaKey = rsa.PrivateKey

// paysimRefuseAll makes the sandbox treat every webhook attempt as refused
// by the partner: the connector's endpoint is down.
func paysimRefuseAll() paysim.Faults { return paysim.Faults{WebhookRefuse: 1} }
