package leakscan_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"path/filepath"
	"strings"
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
	cfg     *config.Config
	sandbox *paysim.Server
	logs    *syncBuffer
	stop    func() error // stops the connector; returns Run's error
	client  *kgo.Client
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

func startRig(t *testing.T) *rig {
	t.Helper()
	brokers := harness.Kafka(t)
	cl := harness.NewClient(t, kgo.ProducerLinger(0))
	dir := t.TempDir()
	partner, service, err := paysim.DevKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	webhookL := listen(t)
	opsL := listen(t)
	const hookPath = "/webhooks/paysession"
	sim, err := paysim.New(paysim.Config{ServiceKey: service, Seed: 1,
		Projects: []paysim.Project{paysim.DevProject("leakscan", &partner.PublicKey, "http://"+webhookL.Addr().String()+hookPath)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })

	id := randomID()
	vars := map[string]string{
		"PAYSESSION_API_BASE_URL":                  sim.URL(),
		"PAYSESSION_API_PROJECT":                   "leakscan",
		"PAYSESSION_API_PRIVATE_KEY_FILE":          filepath.Join(dir, paysim.DevPartnerPrivate),
		"PAYSESSION_API_SERVICE_PUBLIC_KEY_FILES":  filepath.Join(dir, paysim.DevServicePublic),
		"PAYSESSION_KAFKA_BROKERS":                 strings.Join(brokers, ","),
		"PAYSESSION_KAFKA_GROUP_ID":                "leakscan-" + id,
		"PAYSESSION_KAFKA_TRANSACTIONAL_ID_PREFIX": "leakscan-" + id,
		"PAYSESSION_WEBHOOK_PATH":                  hookPath,
		"PAYSESSION_PIPELINE_BATCH_DEADLINE":       "2s",
		"PAYSESSION_PIPELINE_TRANSACTION_TIMEOUT":  "30s",
		"PAYSESSION_RECONCILER_INTERVAL":           "200ms",
		"PAYSESSION_RECONCILER_QUIET_AFTER":        "1s",
		"PAYSESSION_SHUTDOWN_GRACE":                "6s",
		"PAYSESSION_LOG_LEVEL":                     "debug",
		"PAYSESSION_LOG_FORMAT":                    "json",
	}
	// Every topic variable points at a fresh topic of this test, created
	// as the connector's start-up check wants it.
	for name, topic := range harness.ConnectorTopics(t, cl, 1) {
		vars[name] = topic
	}
	ctx := context.Background()
	cfg, err := config.Load(ctx, envconfig.MapLookuper(vars))
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	c, err := connector.New(ctx, connector.Options{Config: cfg, Logger: cfg.Logger(logs), InstanceID: "leakscan-" + id,
		WebhookListener: webhookL, OpsListener: opsL,
		KafkaOpts: []kgo.Opt{kgo.MetadataMinAge(250 * time.Millisecond), kgo.MetadataMaxAge(2 * time.Second), kgo.FetchMaxWait(100 * time.Millisecond)}})
	if err != nil {
		t.Fatalf("connector.New: %v", err)
	}
	stop := harness.Background(t, "connector Run", c.Run)
	return &rig{cfg: cfg, sandbox: sim, logs: logs, stop: stop, client: cl}
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}
