package pipeline

import (
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

func TestQueueOrder(t *testing.T) {
	q := &queue{keys: []string{"q1", "q2", "f1", "f2"}, at: 2} // q parked again; f parked fresh since
	for _, tc := range []struct {
		name  string
		batch string // retry records' keys, as the retry topic gave them
		order string
		ready int
	}{
		{"the head back, with records met first", "u1 u2 q1 q2", "q1 q2 u1 u2", 4},
		{"all of it", "f1 u1 q2 q1 f2", "q1 q2 u1 f1 f2", 5},
		{"met before the head", "u1 u2 u3", "u1 u2 u3", 0},
		{"the head's rest missing", "f1 q1 u1", "q1 u1 f1", 1},
		{"parked fresh, before the rest", "f1 f2", "f1 f2", 0},
		{"a key twice", "q1 q1 q2", "q1 q1 q2", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var retries []*inbound
			for _, k := range strings.Fields(tc.batch) {
				retries = append(retries, newInbound(&kgo.Record{Key: []byte(k)}, "capture", true))
			}
			ready := q.order(retries)
			var got []string
			for _, in := range retries {
				got = append(got, in.key)
			}
			if strings.Join(got, " ") != tc.order || ready != tc.ready {
				t.Errorf("order %v ready %d, want %s ready %d", got, ready, tc.order, tc.ready)
			}
		})
	}
}

// TestParkedSetKeepsAQueue: a batch that parks again a retry record of a
// session while others of the session stay parked outside it gives the
// session a queue, which follows later batches until it is empty.
func TestParkedSetKeepsAQueue(t *testing.T) {
	pairs := func(lane, keys string) []laneKeyPair {
		var ps []laneKeyPair
		for _, k := range strings.Fields(keys) {
			ps = append(ps, laneKeyPair{lane, k})
		}
		return ps
	}
	s := newParkedSet()
	s.apply(nil, pairs("s:a", "r1 r2 r3 r4 r5 r6")) // a flood parked past the cap
	s.apply(pairs("s:a", "r1 r2"), nil)             // consumed back and run
	if len(s.queues) != 0 {
		t.Fatalf("queues %v after batches in order", s.queues)
	}
	// r3 is cut by the deadline: r3 and r4 are parked again behind r5 and r6,
	// with a fresh command f1.
	s.apply(pairs("s:a", "r3 r4"), pairs("s:a", "r3 r4 f1"))
	q := s.queues["s:a"]
	if q == nil || strings.Join(q.keys, " ") != "r3 r4 f1" || q.at != 2 {
		t.Fatalf("queue %+v, want r3 r4 | f1", q)
	}
	s.apply(pairs("s:a", "r5"), pairs("s:a", "r5 f2")) // met before the head: parked again behind it
	if got := strings.Join(q.keys, " "); got != "r3 r4 r5 f1 f2" || q.at != 3 {
		t.Fatalf("queue %s at %d, want r3 r4 r5 | f1 f2", got, q.at)
	}
	s.apply(pairs("s:a", "r6 r3 r4"), pairs("s:a", "r6")) // the head runs; r6 waits for r5
	if got := strings.Join(q.keys, " "); got != "r5 r6 f1 f2" || q.at != 2 {
		t.Fatalf("queue %s at %d, want r5 r6 | f1 f2", got, q.at)
	}
	s.apply(pairs("s:a", "f1 f2 r5 r6"), nil)
	if len(s.queues) != 0 || s.len() != 0 {
		t.Fatalf("queues %v, set %v after the last: want none", s.queues, s.m)
	}
	// Parked again with nothing else of the session outside: in order.
	s.apply(nil, pairs("s:b", "b1"))
	s.apply(pairs("s:b", "b1"), pairs("s:b", "b1 b2"))
	// Lanes of one command (no session) keep no queue.
	s.apply(nil, pairs("k:x", "x1 x2"))
	s.apply(pairs("k:x", "x1"), pairs("k:x", "x1"))
	if len(s.queues) != 0 {
		t.Fatalf("queues %v, want none", s.queues)
	}
	s.apply(nil, pairs("s:c", "c1 c2"))
	s.apply(pairs("s:c", "c1"), pairs("s:c", "c1"))
	if s.reset(); len(s.queues) != 0 {
		t.Fatal("reset keeps queues")
	}
}

// TestGroupLanesByQueue: the retry records of a lane with a queue run in
// its order, up to the first whose predecessor is outside the batch; the
// lane's fresh commands then wait too.
func TestGroupLanesByQueue(t *testing.T) {
	mk := func(key, session string, retry bool) *inbound {
		in := newInbound(&kgo.Record{Key: []byte(key)}, "capture", retry)
		in.cmd = &command{Kind: "capture", SessionID: session}
		return in
	}
	parked := newParkedSet()
	parked.apply(nil, []laneKeyPair{{"s:a", "r1"}, {"s:a", "r2"}, {"s:a", "r3"}})
	parked.apply([]laneKeyPair{{"s:a", "r1"}}, []laneKeyPair{{"s:a", "r1"}}) // r1 parked again behind r2, r3
	for _, tc := range []struct {
		name  string
		ins   []*inbound
		order string
		ready int
	}{
		{"records met first wait for the head", []*inbound{mk("r2", "a", true), mk("f", "a", false)}, "r2 f", 0},
		{"the head back", []*inbound{mk("r2", "a", true), mk("r3", "a", true), mk("r1", "a", true), mk("f", "a", false)}, "r1 r2 r3 f", 4},
		{"the head back alone", []*inbound{mk("r1", "a", true), mk("f", "a", false)}, "r1 f", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lanes := groupLanes(tc.ins, parked)
			if len(lanes) != 1 {
				t.Fatalf("%d lanes", len(lanes))
			}
			var got []string
			for _, in := range lanes[0].items {
				got = append(got, in.key)
			}
			if strings.Join(got, " ") != tc.order || lanes[0].ready != tc.ready {
				t.Errorf("lane %v ready %d, want %s ready %d", got, lanes[0].ready, tc.order, tc.ready)
			}
		})
	}
}
