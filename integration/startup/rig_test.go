package startup_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/integration/harness/inproc"
)

// setup is a connector's configuration on the test broker (inproc.Rig),
// with every topic created as the connector wants it, a sandbox that sends
// no webhook, no reconciler, and the connector's API calls counted.
type setup struct {
	*inproc.Rig
	client *kgo.Client
	calls  *callCounter
}

// newSetup prepares a rig; the test may change its variables (Vars) before
// it builds a connector.
func newSetup(t *testing.T) *setup {
	t.Helper()
	rig := inproc.NewRig(t, inproc.Project("startup"), inproc.NoWebhooks())
	maps.Copy(rig.Vars, map[string]string{
		"PAYSESSION_API_ALLOW_INSECURE_HTTP":      "true",
		"PAYSESSION_PIPELINE_TRANSACTION_TIMEOUT": "20s",
		"PAYSESSION_RECONCILER_INTERVAL":          "0",
	})
	return &setup{Rig: rig, client: harness.NewClient(t, kgo.ProducerLinger(0)), calls: &callCounter{byKey: map[string]int{}}}
}

// options are the connector options of the setup: its API calls counted
// per idempotency key, its log on the test's failure log.
func (s *setup) options(t *testing.T) []inproc.ConnectorOption {
	return []inproc.ConnectorOption{inproc.InstanceID("startup"), inproc.LogTo(harness.FailureLog(t, "STARTUP_TEST_LOG")),
		inproc.HTTPClient(&http.Client{Transport: s.calls.wrap(http.DefaultTransport), Timeout: 10 * time.Second})}
}

// newConnector builds a connector of the setup without running it.
func (s *setup) newConnector(t *testing.T) (*connector.Connector, error) {
	t.Helper()
	return s.New(t, s.options(t)...)
}

// startReady runs a connector of the setup until the test ends, and waits
// until its /readyz answers 200.
func (s *setup) startReady(t *testing.T) *inproc.Connector {
	t.Helper()
	c := s.Start(t, s.options(t)...)
	c.AwaitReady(t)
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

// opsServer is a connector, built or started: what serves /readyz and /metrics.
type opsServer interface{ OpsAddr() string }

// readyz returns /readyz's status code and its failed checks.
func readyz(t *testing.T, c opsServer) (int, map[string]string) {
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
func metrics(t *testing.T, c opsServer) string {
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
