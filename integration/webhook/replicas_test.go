package webhook

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/ingress"
	"github.com/paysession/paysession/connector/sessionwriter"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
)

// replica is one connector replica of the test: its webhook endpoint and
// its session writer (both in one group with the other replica's).
type replica struct {
	ingress *ingress.Ingress
	writer  *sessionwriter.Writer
}

// fastCompaction makes the broker's log cleaner compact the sessions topic
// within seconds of a segment rolling.
var fastCompaction = map[string]string{"segment.ms": "100", "min.cleanable.dirty.ratio": "0.01",
	"min.compaction.lag.ms": "0", "delete.retention.ms": "100"}

// TestReplayToAReplicaThatDoesNotOwnTheSession (issue 14, item 1): two
// replicas; a payout waits for session/confirm, the auto-confirm policy
// confirms it once, it succeeds. Then every older webhook of the session is
// replayed, validly signed, to the replica that does not own the session's
// partition (a fresh process: nothing of the session in memory). The
// replays are answered 200 and change nothing: the session is not
// re-opened, no second session/confirm is sent, the sessions topic,
// compacted by the broker and read back, holds the final state as the
// session's only record, and the webhook-events topic holds each event id
// once.
func TestReplayToAReplicaThatDoesNotOwnTheSession(t *testing.T) {
	g := newRig(t, rigOpts{sessionsConfigs: fastCompaction})
	ctx := context.Background()
	w2 := g.newWriter(t, "2")
	replicas := []replica{{g.ingress, g.writer}, {g.newIngress(t, w2, 2*time.Second, 0), w2}}
	harness.Eventually(t, 60*time.Second, "both writers own partitions", func() bool {
		a, b := replicas[0].writer.Partitions(), replicas[1].writer.Partitions()
		return len(a) > 0 && len(b) > 0 && len(a)+len(b) == 3
	})
	reg := prometheus.NewRegistry()
	r := g.newMeteredReconciler(t, autoPayouts, reg)
	harness.Eventually(t, 30*time.Second, "reconciler ready", func() bool { return r.Ready(ctx) == nil })

	s := g.payout(t, cardOK, confirmAbove+1) // waits for session/confirm
	g.publishResponse(t, s)
	harness.Eventually(t, 60*time.Second, "payout confirmed and paid", func() bool {
		g.sim.Advance(time.Second)
		g.idle(t)
		return len(g.payoutsBooked(s.ID)) == 1 && r.OpenSessions() == 0
	})
	sent := g.attempts()
	if len(sent) < 2 {
		t.Fatalf("%d webhooks, want at least ready_to_confirm and payment_finished", len(sent))
	}
	part, final := g.lastState(t, s.ID)
	before := len(g.statesOf(t, s.ID))
	execsBefore, _ := g.sim.Executions(s.ID)
	if !codec.IsFinal(final.Session.Status) {
		t.Fatalf("last state %s before the replay, want final", final.Session.Status)
	}
	other := replicas[0]
	if slices.Contains(other.writer.Partitions(), part) {
		other = replicas[1]
	}
	if slices.Contains(other.writer.Partitions(), part) {
		t.Fatalf("both writers own partition %d", part)
	}
	for i := len(sent) - 2; i >= 0; i-- { // every older webhook, newest first
		rec := httptest.NewRecorder()
		other.ingress.ServeHTTP(rec, httptestRequest(t, g.url, sent[i]))
		if rec.Code != http.StatusOK {
			t.Fatalf("replay %d answered %d", i, rec.Code)
		}
	}
	g.sim.Advance(10 * time.Minute) // past QuietAfter: a re-opened session would come due
	g.idle(t)
	if after := len(g.statesOf(t, s.ID)); after != before { // readAll waits for the writers
		t.Fatalf("the replay added %d records of the session to the sessions topic, want none", after-before)
	}
	if r.OpenSessions() != 0 {
		t.Fatal("the replay re-opened the session in the reconciler")
	}
	// The replica that does not own the session confirms it with one
	// session/status read (its writer does not hold it); nothing else.
	if execs, _ := g.sim.Executions(s.ID); len(writes(execs)) != len(writes(execsBefore)) || len(execs) > len(execsBefore)+1 ||
		g.confirms(s.ID) != 1 {
		t.Fatalf("API calls for the session after the replay: %v (before %v), want at most one session/status read",
			methods(execs), methods(execsBefore))
	}

	// Roll the partition's segment with one more state (another session),
	// so the cleaner may compact the session's records, then read back.
	// The broker's one cleaner thread serves every compacted topic of the
	// run (make test runs many at once) and backs off 15 s when idle: roll
	// again now and then until it got to this partition.
	g.rollPartition(t, part)
	lastRoll := time.Now()
	harness.Eventually(t, 3*time.Minute, "sessions topic compacted to one record of the session", func() bool {
		if len(g.statesOf(t, s.ID)) == 1 {
			return true
		}
		if time.Since(lastRoll) > 20*time.Second {
			g.rollPartition(t, part)
			lastRoll = time.Now()
		}
		return false
	})
	if _, last := g.lastState(t, s.ID); codec.Newer(codec.VersionOf(final), codec.VersionOf(last)) ||
		last.Session.Status != final.Session.Status {
		t.Fatalf("after the replay and compaction the session's record is %s@%v, want the final %s@%v",
			last.Session.Status, last.Session.UpdatedAt, final.Session.Status, final.Session.UpdatedAt)
	}
	seen := map[string]bool{}
	for _, rec := range g.readAll(t, g.events) {
		ev := decodeEvent(t, rec)
		if seen[ev.EventID] {
			t.Fatalf("event %s (%s) on the webhook-events topic twice", ev.EventID, ev.Type)
		}
		seen[ev.EventID] = true
	}
}

// statesOf returns the records of a session on the sessions topic.
func (g *rig) statesOf(t *testing.T, id string) []*kgo.Record {
	t.Helper()
	var recs []*kgo.Record
	for _, rec := range g.readAll(t, g.sessions) {
		if string(rec.Key) == id {
			recs = append(recs, rec)
		}
	}
	return recs
}

// lastState returns the partition and the last state of a session on the
// sessions topic.
func (g *rig) lastState(t *testing.T, id string) (int32, *codec.SessionState) {
	t.Helper()
	var (
		part int32
		last *codec.SessionState
	)
	for _, rec := range g.readAll(t, g.sessions) {
		if string(rec.Key) == id {
			part, last = rec.Partition, decodeState(t, rec)
		}
	}
	if last == nil {
		t.Fatalf("no state of %s on the sessions topic", id)
	}
	return part, last
}

// confirms counts the session/confirm calls the sandbox executed for a
// session.
func (g *rig) confirms(id string) int {
	execs, _ := g.sim.Executions(id)
	n := 0
	for _, e := range execs {
		if e.Method == "session/confirm" {
			n++
		}
	}
	return n
}

// rollPartition writes one update of a made-up session to partition p of
// the updates topic and waits until the writer wrote it to the sessions
// topic: the sessions partition's earlier segment can then be compacted.
func (g *rig) rollPartition(t *testing.T, p int32) {
	t.Helper()
	at := g.sim.Now()
	id := fmt.Sprintf("ps_roll_%d", time.Now().UnixNano()) // a new session each time: always written
	st := &codec.SessionState{Session: codec.Session{ID: id, Status: "created", UpdatedAt: &at},
		Source: codec.SourcePoll, ObservedAt: at, APIVersion: 1}
	v, err := codec.EncodeSingleObject(st)
	if err != nil {
		t.Fatal(err)
	}
	cl := newClient(t, g.brokers, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	rec := sessionwriter.Update(g.updates, id, v)
	rec.Partition = p
	if err := cl.ProduceSync(context.Background(), rec).FirstErr(); err != nil {
		t.Fatal(err)
	}
	g.writerCaughtUp(t)
}

// httptestRequest rebuilds a recorded webhook delivery as a request.
func httptestRequest(t *testing.T, url string, d delivery) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(d.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-PARTNER-SIGN", d.sig)
	return req
}
