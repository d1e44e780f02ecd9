package leakscan_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"maps"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/integration/harness"
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

// startRig starts the rig's connector on a sandbox with the connector's
// variables (harness.Sandbox), its webhooks sent to the connector's listener,
// its API calls through an echo proxy (startEchoProxy).
func startRig(t *testing.T) *rig {
	t.Helper()
	webhookL := harness.Listen(t)
	opsL := harness.Listen(t)
	const hookPath = "/webhooks/paysession"
	webhookURL := "http://" + webhookL.Addr().String() + hookPath
	sim, vars := harness.Sandbox(t, "leakscan", webhookURL)
	_, serviceKey, err := paysim.DevKeys(filepath.Dir(vars["PAYSESSION_API_SERVICE_PUBLIC_KEY_FILES"]))
	if err != nil {
		t.Fatalf("service key: %v", err)
	}
	maps.Copy(vars, map[string]string{
		"PAYSESSION_API_BASE_URL":                 startEchoProxy(t, sim.URL()),
		"PAYSESSION_WEBHOOK_PATH":                 hookPath,
		"PAYSESSION_PIPELINE_BATCH_DEADLINE":      "2s",
		"PAYSESSION_PIPELINE_TRANSACTION_TIMEOUT": "30s",
		"PAYSESSION_RECONCILER_INTERVAL":          "200ms",
		"PAYSESSION_RECONCILER_QUIET_AFTER":       "1s",
		"PAYSESSION_SHUTDOWN_GRACE":               "6s",
		"PAYSESSION_LOG_LEVEL":                    "debug",
		"PAYSESSION_LOG_FORMAT":                   "json",
	})
	cl := harness.NewClient(t, kgo.ProducerLinger(0))
	ctx := context.Background()
	cfg, err := config.Load(ctx, envconfig.MapLookuper(vars))
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	c, err := connector.New(ctx, connector.Options{Config: cfg, Logger: connector.NewLogger(logs, cfg.Log), InstanceID: vars["PAYSESSION_KAFKA_GROUP_ID"],
		WebhookListener: webhookL, OpsListener: opsL,
		KafkaOpts: []kgo.Opt{kgo.MetadataMinAge(250 * time.Millisecond), kgo.MetadataMaxAge(2 * time.Second), kgo.FetchMaxWait(100 * time.Millisecond)}})
	if err != nil {
		t.Fatalf("connector.New: %v", err)
	}
	stop := harness.Background(t, "connector Run", c.Run)
	return &rig{cfg: cfg, vars: vars, sandbox: sim, logs: logs, stop: stop, client: cl, webhookURL: webhookURL, serviceKey: serviceKey}
}
