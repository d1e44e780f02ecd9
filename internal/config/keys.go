package config

import (
	"crypto/rsa"
	"fmt"
	"strings"

	"github.com/paysession/paysession/internal/signing"
)

// Signer loads the private key and returns the signer of API requests.
func (c *Config) Signer() (signing.Signer, error) {
	pad, err := signing.ParsePadding(c.API.SignaturePadding)
	if err != nil {
		return nil, fmt.Errorf("%sAPI_SIGNATURE_PADDING: %w", Prefix, err)
	}
	k, err := signing.LoadPrivateKey(c.API.PrivateKeyFile)
	if err != nil {
		return nil, fmt.Errorf("%sAPI_PRIVATE_KEY_FILE: %w", Prefix, err)
	}
	return signing.NewRSASigner(k, pad), nil
}

// WebhookVerifier loads every service public key and returns a verifier that
// accepts a signature under any of them (key rotation).
func (c *Config) WebhookVerifier() (signing.Verifier, error) {
	pad, err := signing.ParsePadding(c.API.SignaturePadding)
	if err != nil {
		return nil, fmt.Errorf("%sAPI_SIGNATURE_PADDING: %w", Prefix, err)
	}
	if len(c.API.ServicePublicKeys) == 0 {
		return nil, fmt.Errorf("%sAPI_SERVICE_PUBLIC_KEY_FILES: required", Prefix)
	}
	pubs := make([]*rsa.PublicKey, 0, len(c.API.ServicePublicKeys))
	for _, f := range c.API.ServicePublicKeys {
		k, err := signing.LoadPublicKey(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%sAPI_SERVICE_PUBLIC_KEY_FILES: %w", Prefix, err)
		}
		pubs = append(pubs, k)
	}
	return signing.NewRSAVerifier(pad, pubs...), nil
}
