package observability

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/integration/harness/inproc"
)

// Labels Prometheus puts on the connector's series, as a ServiceMonitor
// would: the dashboard's variables take these values.
const (
	testNamespace = "obs"
	testJob       = "paysession"
)

// rig is an in-process connector on the shared broker in front of the
// sandbox, with a Prometheus scraping it every second and evaluating the
// chart's rule file.
type rig struct {
	*inproc.Rig
	conn     *inproc.Connector
	producer *kgo.Client
	prom     *Server
}

// logger is the logger of a test's parts: its log is printed if the test
// fails (OBSERVABILITY_TEST_LOG=1: as it runs).
func logger(t *testing.T) *slog.Logger { return harness.Logger(t, "OBSERVABILITY_TEST_LOG") }

// startRig starts the sandbox, the connector and Prometheus. The connector
// confirms payouts up to 5,000,000 by itself, polls sessions quiet for a
// second, gives a command two attempts, and serves one webhook at a time
// (so that a held request makes the next one overloaded).
func startRig(t *testing.T) *rig {
	t.Helper()
	bins, err := EnsurePrometheus(context.Background(), logger(t))
	if err != nil {
		t.Fatal(err)
	}
	base := inproc.NewRig(t, inproc.Project("obs"))
	maps.Copy(base.Vars, map[string]string{
		"PAYSESSION_API_RETRY_MAX_ATTEMPTS": "2",
		"PAYSESSION_API_RETRY_BACKOFF_BASE": "10ms",
		"PAYSESSION_API_RETRY_BACKOFF_MAX":  "50ms",
		"PAYSESSION_RECONCILER_QUIET_AFTER": "1s",
		"PAYSESSION_CONFIRM_POLICY":         "auto",
		"PAYSESSION_CONFIRM_KINDS":          "payout",
		"PAYSESSION_CONFIRM_MAX_AMOUNT":     "5000000",
		"PAYSESSION_METRICS_PPROF":          "true",
	})
	c := base.Start(t, inproc.LogTo(harness.FailureLog(t, "OBSERVABILITY_TEST_LOG")))
	ctx := context.Background()

	rules, err := ChartFile("prometheus-rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	prom, err := Start(ctx, ServerConfig{Binaries: bins, Dir: dir, Targets: []string{c.OpsAddr()}, Job: testJob,
		Labels: map[string]string{"namespace": testNamespace}, RuleFiles: []string{rules}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(prom.Stop)
	// Prometheus applies its targets a few seconds after it starts: the
	// load waits for the first scrape, so that every counter is seen
	// before it moves (rate() cannot count a series' first value).
	harness.Eventually(t, 60*time.Second, "Prometheus has scraped the connector", func() bool {
		up, err := prom.TargetsUp(ctx)
		return err == nil && up
	})
	t.Logf("prometheus %s at %s, log %s", bins.Version, prom.URL(), dir)
	return &rig{Rig: base, conn: c, producer: harness.NewClient(t, kgo.ProducerLinger(0)), prom: prom}
}

// send produces one JSON command of the kind of topic variable PAYSESSION_TOPIC_<topic>.
func (r *rig) send(t *testing.T, topic, key, value string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec := &kgo.Record{Topic: r.Topic(topic), Key: []byte(key), Value: []byte(value)}
	if err := r.producer.ProduceSync(ctx, rec).FirstErr(); err != nil {
		t.Fatalf("produce %s: %v", key, err)
	}
}

// payout returns an init_payout command of amount to a card that succeeds.
func payout(amount int) string {
	return `{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4111111111111111",` +
		`"expiration_month":"12","expiration_year":"29"}}},"amount":` + strconv.Itoa(amount) + `,"currency":"rub"}`
}

// steadyLoad produces a payout every 200 ms until ctx ends, at most 600
// (two minutes).
func (r *rig) steadyLoad(ctx context.Context) error {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	topic := r.Topic("INIT_PAYOUT")
	for i := range 600 {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		rec := &kgo.Record{Topic: topic, Key: []byte(fmt.Sprintf("obs-steady-%04d", i)), Value: []byte(payout(15000))}
		if err := r.producer.ProduceSync(ctx, rec).FirstErr(); err != nil && ctx.Err() == nil {
			return fmt.Errorf("steady load: %w", err)
		}
	}
	return nil
}

// metric reads the sum of the series of name from the connector's /metrics.
func (r *rig) metric(t *testing.T, name string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + r.conn.OpsAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, name); ok && (strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "{")) {
			f := strings.Fields(line)
			v, _ := strconv.ParseFloat(f[len(f)-1], 64)
			sum += v
		}
	}
	return sum
}

// postWebhook posts a (validly shaped, unverifiable) webhook and returns
// the status.
func (r *rig) postWebhook(t *testing.T) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+r.conn.WebhookAddr()+inproc.HookPath, strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-PARTNER-SIGN", base64.StdEncoding.EncodeToString(make([]byte, 256)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
