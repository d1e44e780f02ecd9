package pipeline_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/paysim"
)

// TestConcurrency runs 1,000 commands from one partition against a sandbox
// that takes 200 ms per call. Sequentially that is 200 s; with many calls in
// flight it must finish far faster.
func TestConcurrency(t *testing.T) {
	n := envInt("PIPELINE_CONCURRENCY_COMMANDS", 1000)
	const latency = 200 * time.Millisecond
	e := newEnv(t, envOptions{kinds: []codec.CommandKind{codec.KindInitPayment},
		faults: paysim.Faults{Latency: latency}})
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = e.command(codec.KindInitPayment, fmt.Sprintf("conc-%s-%05d", e.id, i), initPaymentJSON(cardSuccess, 1000+i))
	}
	e.produce(t, recs...)
	start := time.Now()
	e.start(t, nil)
	e.out.count(t, 1, time.Minute)
	first := time.Since(start) // group join and the first batch
	e.out.count(t, n, 3*time.Minute)
	took := time.Since(start)
	sequential := time.Duration(n) * latency
	t.Logf("%d commands at %v each: %v from pipeline start (first result after %v; sequential would take %v, %.0fx faster)",
		n, latency, took.Round(time.Millisecond), first.Round(time.Millisecond), sequential, float64(sequential)/float64(took))
	for _, r := range recs {
		if res := e.out.result(t, string(r.Key), time.Second); res.Status != codec.StatusAccepted {
			t.Fatalf("%s: %s %s", r.Key, res.Status, deref(res.ErrorCode))
		}
	}
	if limit := sequential * 15 / 100; took > limit && n >= 1000 {
		t.Errorf("took %v, want under %v", took, limit)
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
