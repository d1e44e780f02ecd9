package webhook

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/sessionwriter"
	"github.com/paysession/paysession/integration/harness"
)

// bufferedUpdates counts the update records a writer's client fetched.
type bufferedUpdates struct{ n atomic.Int64 }

func (b *bufferedUpdates) OnFetchRecordBuffered(*kgo.Record) { b.n.Add(1) }

// TestCommitIntervalGathersUpdatesIntoOneTransaction: after a transaction
// the session writer waits out its commit interval, and the updates that
// arrive meanwhile are written in one transaction, where without the
// interval the writer keeps up with them one or a few at a time.
//
// The writer's client holds at most one fetch it has not polled: the
// update that ends the first wait's fetch (u2) is its own transaction, and
// the eight produced after it are fetched together while the writer waits
// again, so the writer commits three transactions for ten updates.
func TestCommitIntervalGathersUpdatesIntoOneTransaction(t *testing.T) {
	waits := make(chan time.Duration, 16)
	release := make(chan time.Time, 1)
	buffered := &bufferedUpdates{}
	reg := prometheus.NewRegistry()
	g := newRig(t, rigOpts{writer: sessionwriter.Config{
		CommitInterval: time.Hour, Registerer: reg,
		ClientHooks: func() []kgo.Hook { return []kgo.Hook{buffered} },
		After: func(d time.Duration) <-chan time.Time {
			select {
			case waits <- d:
			default:
			}
			return release
		},
	}})
	if err := g.sim.SetFaults(paysimRefuseAll()); err != nil { // the updates are the test's alone
		t.Fatal(err)
	}
	var ids []string
	publish := func() {
		s := g.payout(t, cardOK, 10000)
		g.publishResponse(t, s)
		ids = append(ids, s.ID)
	}
	awaitWait := func() {
		t.Helper()
		select {
		case d := <-waits:
			if d <= 0 || d > time.Hour {
				t.Fatalf("the writer waits %s after its transaction, want (0, 1h]", d)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the writer did not wait after its transaction")
		}
	}
	commits := func() float64 {
		return counter(t, reg, "paysession_session_writer_transactions_total", "result", "commit")
	}
	fetched := func(n int64) {
		t.Helper()
		harness.Eventually(t, 30*time.Second, fmt.Sprintf("the writer's client fetched %d updates", n), func() bool {
			return buffered.n.Load() >= n
		})
	}

	// Start once the writer took its partitions over: an assignment ends a
	// wait early (the partitions are taken over at once), which would add a
	// transaction to the counts below.
	harness.Eventually(t, 30*time.Second, "session writer ready", func() bool { return g.writer.Ready(context.Background()) == nil })
	publish() // no transaction before it: written at once
	g.writerCaughtUp(t)
	awaitWait()
	if n := commits(); n != 1 {
		t.Fatalf("%v transactions committed for the first update, want 1", n)
	}
	publish()
	fetched(2)
	for range 8 {
		publish()
	}
	release <- time.Now() // u2 alone: fetched before the eight were produced
	awaitWait()
	fetched(10)
	if n := commits(); n != 2 {
		t.Fatalf("%v transactions committed once the writer waits again after u2, want 2", n)
	}
	release <- time.Now()
	g.writerCaughtUp(t)
	if n := commits(); n != 3 {
		t.Fatalf("%v transactions committed for ten updates, want 3: the eight that arrived during one interval share one", n)
	}
	written := map[string]bool{}
	for _, r := range g.readAll(t, g.sessions) {
		written[string(r.Key)] = true
	}
	for _, id := range ids {
		if !written[id] {
			t.Errorf("session %s is not on the sessions topic", id)
		}
	}
}
