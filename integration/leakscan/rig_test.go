package leakscan_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"maps"
	"path/filepath"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/integration/harness/inproc"
	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/paysim"
)

// rig is a whole connector in-process (as cmd/connector demo builds it) on
// the real broker, with unique topics, the sandbox on loopback, and every
// log line of the connector captured at debug level.
type rig struct {
	cfg        *config.Config
	vars       map[string]string // the connector's variables
	sandbox    *paysim.Server
	logs       *syncBuffer
	stop       func() error // stops the connector; returns Run's error
	client     *kgo.Client
	webhookURL string          // the connector's webhook endpoint
	serviceKey *rsa.PrivateKey // signs webhooks as the sandbox does
}

// syncBuffer is a bytes.Buffer safe for the connector's concurrent logging.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.b.Bytes())
}

func randomID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// startRig starts the rig's connector (inproc.Rig) at debug level in JSON,
// its webhooks sent to the connector's listener, its API calls through an
// echo proxy (startEchoProxy), the reconciler polling every 200 ms.
func startRig(t *testing.T) *rig {
	t.Helper()
	base := inproc.NewRig(t, inproc.Project("leakscan"))
	_, serviceKey, err := paysim.DevKeys(filepath.Dir(base.Vars["PAYSESSION_API_SERVICE_PUBLIC_KEY_FILES"]))
	if err != nil {
		t.Fatalf("service key: %v", err)
	}
	maps.Copy(base.Vars, map[string]string{
		"PAYSESSION_API_BASE_URL":           startEchoProxy(t, base.Sandbox.URL()),
		"PAYSESSION_RECONCILER_INTERVAL":    "200ms",
		"PAYSESSION_RECONCILER_QUIET_AFTER": "1s",
		"PAYSESSION_LOG_LEVEL":              "debug",
		"PAYSESSION_LOG_FORMAT":             "json",
	})
	logs := &syncBuffer{}
	c := base.Start(t, inproc.LogTo(logs))
	return &rig{cfg: c.Config, vars: base.Vars, sandbox: base.Sandbox, logs: logs, stop: c.Stop, client: harness.NewClient(t, kgo.ProducerLinger(0)),
		webhookURL: "http://" + base.Webhook.Addr().String() + inproc.HookPath, serviceKey: serviceKey}
}
