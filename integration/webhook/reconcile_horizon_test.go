package webhook

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/reconcile"
	"github.com/paysession/paysession/connector/sessionstate"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
)

// TestReconcilerReadsOnlyTheHorizon: one partition of the sessions topic
// holds unsettled sessions whose records are stamped older than the
// reconciler's horizon (codec.DefaultHorizon plus the clock
// allowance, on the sandbox's clock), then unsettled recent ones. A
// reconciler that starts then reads the partition from its first recent
// record: once ready it holds only the recent sessions, and polls only
// those when they turn quiet; the old ones get no call and no state.
func TestReconcilerReadsOnlyTheHorizon(t *testing.T) {
	g := newRig(t, rigOpts{})
	ctx := context.Background()
	// No webhook reaches the connector: the only records of the sessions
	// are the ones this test writes, with the timestamps it gives them.
	if err := g.sim.SetFaults(paysimRefuseAll()); err != nil {
		t.Fatal(err)
	}
	prod := newClient(t, g.brokers, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0))
	now := g.sim.Now()
	stamps := map[string]time.Time{
		"old":          now.Add(-codec.DefaultHorizon - codec.ClockAllowance - time.Hour),
		"much older":   now.Add(-30 * 24 * time.Hour),
		"recent":       now.Add(-time.Hour),
		"a minute ago": now.Add(-time.Minute),
	}
	ids := map[string]string{}
	for _, name := range []string{"much older", "old", "recent", "a minute ago"} { // in offset order
		s := g.payment(t, cardHold, 9000)
		g.idle(t)
		s, err := g.api.Status(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		st := sessionstate.FromAPI(s, string(codec.SourceAPIResponse), now, 1)
		if reconcile.Settled(&st.Session) {
			t.Fatalf("%s: session %s is settled, want one the reconciler polls", name, s.ID)
		}
		v, err := codec.EncodeSingleObject(st)
		if err != nil {
			t.Fatal(err)
		}
		rec := &kgo.Record{Topic: g.sessions, Partition: 0, Key: []byte(s.ID), Value: v, Timestamp: stamps[name]}
		if err := prod.ProduceSync(ctx, rec).FirstErr(); err != nil {
			t.Fatal(err)
		}
		ids[name] = s.ID
	}
	polls := func(id string) int {
		ex, _ := g.sim.Executions(id)
		n := 0
		for _, e := range ex {
			if e.Method == "session/status" {
				n++
			}
		}
		return n
	}
	before := map[string]int{}
	for name, id := range ids {
		before[name] = polls(id)
	}

	r := g.newReconciler(t, reconcile.ConfirmPolicy{})
	harness.Eventually(t, 30*time.Second, "reconciler ready", func() bool { return r.Ready(ctx) == nil })
	if n := r.OpenSessions(); n != 2 {
		t.Fatalf("the reconciler holds %d sessions once ready, want the 2 recent ones", n)
	}

	g.sim.Advance(5 * time.Minute) // QuietAfter: every session held is due
	harness.Eventually(t, 30*time.Second, "recent sessions polled", func() bool {
		return polls(ids["recent"]) > before["recent"] && polls(ids["a minute ago"]) > before["a minute ago"]
	})
	for _, name := range []string{"old", "much older"} {
		if n := polls(ids[name]) - before[name]; n != 0 {
			t.Errorf("session of the %s record polled %d times, want none", name, n)
		}
	}
	for _, rec := range g.readAll(t, g.updates) {
		if id := string(rec.Key); id == ids["old"] || id == ids["much older"] {
			t.Errorf("a state of %s was published: the reconciler acted on a session behind the horizon", id)
		}
	}
}
