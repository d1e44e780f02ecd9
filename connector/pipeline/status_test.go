package pipeline

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// TestOwnedPartitions: Status lists the assigned partitions in order, with
// a lag once one was observed (never for a partition no longer owned), and
// forgets revoked ones.
func TestOwnedPartitions(t *testing.T) {
	var o ownedPartitions
	o.assign(context.Background(), nil, map[string][]int32{"commands": {2, 0}, "retry": {0}})
	o.setLags(map[topicPartition]int64{{"commands", 2}: 5, {"commands", 9}: 1})
	check := func(want string) {
		t.Helper()
		if got, _ := json.Marshal(o.list()); string(got) != want {
			t.Errorf("partitions:\n got %s\nwant %s", got, want)
		}
	}
	check(`[{"topic":"commands","partition":0},{"topic":"commands","partition":2,"lag":5},{"topic":"retry","partition":0}]`)
	o.revoke(map[string][]int32{"commands": {2}})
	check(`[{"topic":"commands","partition":0},{"topic":"retry","partition":0}]`)
}

// TestOwnedPartitionsLastError: a committed batch's result other than
// accepted becomes its partition's last error (the highest offset of the
// batch), without its description; accepted and parked outcomes, and
// partitions not owned, leave it; a new assignment clears it.
func TestOwnedPartitionsLastError(t *testing.T) {
	var o ownedPartitions
	o.assign(context.Background(), nil, map[string][]int32{"commands": {0, 1}})
	out := func(p int32, off int64, st codec.CommandStatus, park bool) (*inbound, *outcome) {
		in := &inbound{rec: &kgo.Record{Topic: "commands", Partition: p, Offset: off}, kind: "capture"}
		o := &outcome{in: in, verdict: verdict{Status: st, Code: "card_declined", Field: "amount", Description: "secret words"}}
		if park {
			o.park = &parking{}
		}
		return in, o
	}
	batch := map[*inbound]*outcome{}
	for _, tt := range []struct {
		p    int32
		off  int64
		st   codec.CommandStatus
		park bool
	}{{0, 4, codec.StatusRejected, false}, {0, 6, codec.StatusInvalid, false}, {0, 7, codec.StatusAccepted, false},
		{0, 8, codec.StatusIndeterminate, true}, {1, 2, codec.StatusAccepted, false}, {5, 1, codec.StatusRejected, false}} {
		in, oc := out(tt.p, tt.off, tt.st, tt.park)
		oc.in.rec.Topic = map[bool]string{true: "other", false: "commands"}[tt.p == 5]
		batch[in] = oc
	}
	at := time.Date(2026, 11, 28, 19, 0, 0, 0, time.FixedZone("x", 3600))
	o.committed(batch, at)
	want := `[{"topic":"commands","partition":0,"last_error":{"offset":6,"kind":"capture","status":"invalid","code":"card_declined","field":"amount","at":"2026-11-28T18:00:00Z"}},` +
		`{"topic":"commands","partition":1}]`
	if got, _ := json.Marshal(o.list()); string(got) != want {
		t.Errorf("partitions:\n got %s\nwant %s", got, want)
	}
	o.assign(context.Background(), nil, map[string][]int32{"commands": {0}})
	if got := o.list(); got[0].LastError != nil {
		t.Errorf("last error kept across a new assignment: %+v", got[0].LastError)
	}
}

// TestParkedCount: the parked count Status shows follows the parked set:
// a key parked twice counts once, a consumed key leaves, a reset empties.
func TestParkedCount(t *testing.T) {
	s := newParkedSet()
	s.apply(nil, []laneKeyPair{{"a", "k1"}, {"a", "k2"}, {"b", "k3"}, {"a", "k1"}})
	if n := s.count.Load(); n != 3 || n != int64(s.len()) {
		t.Fatalf("count %d, len %d, want 3", n, s.len())
	}
	s.apply([]laneKeyPair{{"a", "k1"}, {"c", "gone"}}, []laneKeyPair{{"c", "k4"}})
	if n := s.count.Load(); n != 3 || n != int64(s.len()) {
		t.Fatalf("count %d, len %d, want 3", n, s.len())
	}
	s.reset()
	if n := s.count.Load(); n != 0 {
		t.Fatalf("count %d after reset", n)
	}
}

// blockingClock's After fires only when the test closes fire.
type blockingClock struct{ fire chan time.Time }

func (c blockingClock) Now() time.Time                       { return time.Time{} }
func (c blockingClock) After(time.Duration) <-chan time.Time { return c.fire }

// TestStatusRetrying: a command waiting for its next attempt counts in
// Status's retrying until the wait ends.
func TestStatusRetrying(t *testing.T) {
	clock := blockingClock{fire: make(chan time.Time)}
	p := &Pipeline{clock: clock, parked: newParkedSet(), sem: make(chan struct{}, 1)}
	done := make(chan bool)
	go func() { done <- p.retryWait(context.Background(), time.Time{}.Add(time.Minute)) }()
	for p.Status().Retrying != 1 {
		time.Sleep(time.Millisecond)
	}
	close(clock.fire)
	if !<-done {
		t.Fatal("wait did not end")
	}
	if n := p.Status().Retrying; n != 0 {
		t.Fatalf("retrying %d after the wait", n)
	}
}
