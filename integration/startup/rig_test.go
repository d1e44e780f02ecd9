package startup_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"net/http"
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

// setup is a connector's configuration on the test broker, with every topic
// created as the connector wants it (harness.ConnectorTopics) and a sandbox.
type setup struct {
	vars    map[string]string
	client  *kgo.Client
	sandbox *paysim.Server
	calls   *callCounter
}

// newSetup starts a sandbox with the connector's variables
// (harness.Sandbox) and adds the timings of these tests.
func newSetup(t *testing.T) *setup {
	t.Helper()
	sim, vars := harness.Sandbox(t, "startup", "")
	maps.Copy(vars, map[string]string{
		"PAYSESSION_API_ALLOW_INSECURE_HTTP":      "true",
		"PAYSESSION_PIPELINE_BATCH_DEADLINE":      "2s",
		"PAYSESSION_PIPELINE_TRANSACTION_TIMEOUT": "20s",
		"PAYSESSION_RECONCILER_INTERVAL":          "0",
		"PAYSESSION_SHUTDOWN_GRACE":               "6s",
	})
	cl := harness.NewClient(t, kgo.ProducerLinger(0))
	return &setup{vars: vars, client: cl, sandbox: sim, calls: &callCounter{byKey: map[string]int{}}}
}

// config loads the setup's configuration.
func (s *setup) config(t *testing.T) *config.Config {
	t.Helper()
	cfg, err := config.Load(context.Background(), envconfig.MapLookuper(s.vars))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// newConnector builds a connector of the setup whose API calls are counted
// per idempotency key.
func (s *setup) newConnector(t *testing.T) (*connector.Connector, error) {
	t.Helper()
	cfg := s.config(t)
	return connector.New(context.Background(), connector.Options{Config: cfg, Logger: connector.NewLogger(harness.FailureLog(t, "STARTUP_TEST_LOG"), cfg.Log),
		InstanceID: "startup", WebhookListener: harness.Listen(t), OpsListener: harness.Listen(t),
		HTTPClient: &http.Client{Transport: s.calls.wrap(http.DefaultTransport), Timeout: 10 * time.Second},
		KafkaOpts: []kgo.Opt{kgo.MetadataMinAge(250 * time.Millisecond), kgo.MetadataMaxAge(2 * time.Second),
			kgo.FetchMaxWait(100 * time.Millisecond)}})
}

// startReady builds and runs a connector of the setup until the test ends,
// and waits until its /readyz answers 200.
func (s *setup) startReady(t *testing.T) *connector.Connector {
	t.Helper()
	c, err := s.newConnector(t)
	if err != nil {
		t.Fatal(err)
	}
	harness.Background(t, "connector Run", c.Run)
	harness.Eventually(t, 60*time.Second, "/readyz 200", func() bool { code, _ := readyz(t, c); return code == 200 })
	return c
}

// callCounter counts API requests per idempotency key.
type callCounter struct {
	mu    sync.Mutex
	byKey map[string]int
}

func (c *callCounter) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		if k := r.Header.Get("X-PARTNER-IDEMPOTENCY-KEY"); k != "" {
			c.mu.Lock()
			c.byKey[k]++
			c.mu.Unlock()
		}
		return next.RoundTrip(r)
	})
}

func (c *callCounter) max() (string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var key string
	n := 0
	for k, v := range c.byKey {
		if v > n {
			key, n = k, v
		}
	}
	return key, n
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// readyz returns /readyz's status code and its failed checks.
func readyz(t *testing.T, c *connector.Connector) (int, map[string]string) {
	t.Helper()
	resp, err := http.Get("http://" + c.OpsAddr() + "/readyz")
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	var body struct {
		Failed map[string]string `json:"failed"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body.Failed
}

// metric returns the text of /metrics.
func metrics(t *testing.T, c *connector.Connector) string {
	t.Helper()
	resp, err := http.Get("http://" + c.OpsAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func randomID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
