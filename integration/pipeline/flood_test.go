package pipeline_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/paysim"
)

// TestSessionFloodDelaysOthersByTheCap (issue 38 item 5): a flood of
// status_refresh commands for one session (PIPELINE_FLOOD_COMMANDS, default
// 500; the issue saw 2,000) at 20 ms per call, then a status_refresh of
// another session on the same partition and an init_payment on another
// topic. The pipeline's default MaxPerSession (8) runs at most 8 of the
// flood per batch and parks the rest, which drain through the retry topic 8
// a batch; so the two others are answered after at most 8 of the flood's
// commands per batch ahead of them, where the batch that held them used to
// end only with the flood's lane. The flood still executes one call at a
// time, in offset order, each command once.
func TestSessionFloodDelaysOthersByTheCap(t *testing.T) {
	n := envInt("PIPELINE_FLOOD_COMMANDS", 500)
	const latency, perSession, maxPoll = 20 * time.Millisecond, 8, 512 // the pipeline's defaults
	e := newEnv(t, envOptions{kinds: []codec.CommandKind{codec.KindStatusRefresh, codec.KindInitPayment}})
	flooded, other := e.initPayment(t, cardSuccess).ID, e.initPayment(t, cardSuccess).ID
	if err := e.sim.SetFaults(paysim.Faults{Latency: latency}); err != nil {
		t.Fatal(err)
	}
	refresh := func(k, session string) *kgo.Record {
		return e.command(codec.KindStatusRefresh, k, fmt.Sprintf(`{"session_id":%q}`, session))
	}
	var flood []string
	var recs []*kgo.Record
	for i := range n {
		k := fmt.Sprintf("flood-%s-%05d", e.id, i)
		flood = append(flood, k)
		recs = append(recs, refresh(k, flooded))
	}
	samePartition, otherTopic := key("flood-other"), key("flood-payment")
	recs = append(recs, refresh(samePartition, other),
		e.command(codec.KindInitPayment, otherTopic, initPaymentJSON(cardSuccess, 4200)))
	e.produce(t, recs...) // one partition per topic: offset order is this order
	start := time.Now()
	e.start(t, nil)
	e.out.count(t, len(recs), 5*time.Minute)
	drained := time.Since(start)

	res := func(k string) codec.CommandResult { return e.out.result(t, k, time.Second) }
	// The flood's commands whose results were committed no later than a
	// command's: its batch's and those before it.
	before := func(k string) int {
		at, c := res(k).CompletedAt, 0
		for _, f := range flood {
			if !res(f).CompletedAt.After(at) {
				c++
			}
		}
		return c
	}
	// Batches ahead of the same-partition command: its partition's part of
	// each batch is at most maxPoll records.
	bound := perSession * ((n+maxPoll)/maxPoll + 1)
	for _, k := range []string{samePartition, otherTopic} {
		r := res(k)
		if r.Status != codec.StatusAccepted {
			t.Errorf("%s: %s %s", k, r.Status, deref(r.ErrorCode))
		}
		t.Logf("%s: answered %v after its record, after %d of the flood's %d results (bound %d); the flood drained in %v",
			k, r.CompletedAt.Sub(*r.RecordTimestamp).Round(time.Millisecond), before(k), n, bound, drained.Round(time.Millisecond))
		if b := before(k); b > bound {
			t.Errorf("%s was answered after %d of the flood's results, want at most %d", k, b, bound)
		}
	}

	// The flood: one result each, accepted after one attempt, the attempts
	// in offset order; the sandbox executed one status query at a time for
	// the session, one per command.
	for i, k := range flood {
		r := res(k)
		if n := len(e.out.results[k]); n != 1 || r.Status != codec.StatusAccepted || r.Attempts != 1 {
			t.Fatalf("%s: %d results, %s after %d attempts; want 1, accepted after 1", k, n, r.Status, r.Attempts)
		}
		if i > 0 && !res(flood[i-1]).FirstAttemptAt.Before(*r.FirstAttemptAt) {
			t.Fatalf("%s was attempted at %v, not after %s (%v): want offset order", k, r.FirstAttemptAt, flood[i-1], res(flood[i-1]).FirstAttemptAt)
		}
	}
	execs, peak := e.sim.Executions(flooded)
	queries := 0
	for _, x := range execs {
		if x.Method == "session/status" {
			queries++
		}
	}
	if peak != 1 || queries != n {
		t.Errorf("the sandbox executed %d status queries of the flooded session, at most %d at once; want %d, one at a time", queries, peak, n)
	}
	var gaps []time.Duration // between a flood command's answer and the next one's call
	calls := e.proxy.forwarded()
	sort.Slice(calls, func(i, j int) bool { return calls[i].Start.Before(calls[j].Start) })
	var last time.Time
	for _, c := range calls {
		if c.SessionID == flooded && strings.HasSuffix(c.Path, "/session/status") {
			if !last.IsZero() {
				gaps = append(gaps, c.Start.Sub(last))
			}
			last = c.End
		}
	}
	sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
	if len(gaps) > 0 {
		t.Logf("the flood's calls: %d, gap between calls p50 %v, max %v", len(gaps)+1,
			gaps[len(gaps)/2].Round(time.Millisecond), gaps[len(gaps)-1].Round(time.Millisecond))
	}
}
