package pipeline

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestWritableFailsWhileATransactionCannotEnd: a transaction whose end the
// cluster does not answer (a replica cut off from its transaction
// coordinator, or from the leader of a partition it wrote: chaos scenario
// c6) makes Writable fail once it has been writing for longer than the
// batch deadline, and Writable passes again once the end is answered and
// the transaction commits. Before, nothing failed: no produce errs, so
// /readyz stayed 200 while the replica committed nothing.
func TestWritableFailsWhileATransactionCannotEnd(t *testing.T) {
	env := newKfakeEnv(t)
	release := make(chan struct{})
	var once sync.Once
	held := make(chan struct{})
	env.cluster.ControlKey(int16(kmsg.EndTxn), func(kmsg.Request) (kmsg.Response, error, bool) {
		env.cluster.KeepControl()
		first := false
		once.Do(func() { first = true })
		if first {
			close(held)
			env.cluster.SleepControl(func() { <-release }) // the first end waits, unanswered, until released
		}
		return nil, nil, false
	})
	recs := []*kgo.Record{captureRecord(env.topics, "key-0", "ps_0")}
	env.produce(t, recs...)
	p := env.pipeline(t, &fakeAPI{}, func(c *Config) { c.BatchDeadline = 500 * time.Millisecond })
	stop := env.run(t, p)

	select {
	case <-held:
	case <-time.After(20 * time.Second):
		t.Fatal("the pipeline never ended a transaction")
	}
	var err error
	deadline := time.Now().Add(10 * time.Second)
	for err = p.Writable(t.Context()); err == nil && time.Now().Before(deadline); err = p.Writable(t.Context()) {
		time.Sleep(50 * time.Millisecond) // polling readiness, as /readyz does
	}
	if err == nil || !strings.Contains(err.Error(), "not committed") {
		t.Fatalf("Writable while the transaction's end is unanswered = %v, want a transaction not committed", err)
	}
	close(release)
	env.resultsOnceEach(t, recs, 20*time.Second)
	if err := p.Writable(t.Context()); err != nil {
		t.Errorf("Writable after the commit = %v, want nil", err)
	}
	if err := stop(); err != nil {
		t.Error(err)
	}
}
