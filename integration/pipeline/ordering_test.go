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

// TestSessionOrder interleaves capture and refund commands of several
// sessions on one partition. Each session's commands must execute in offset
// order (a refund before its capture would be refused), while commands of
// different sessions overlap in time.
func TestSessionOrder(t *testing.T) {
	const sessions, refunds = 12, 2
	e := newEnv(t, envOptions{kinds: []codec.CommandKind{codec.KindCapture, codec.KindRefund}})
	var ids []string
	for range sessions {
		ids = append(ids, e.initPayment(t, cardHold).ID)
	}
	if err := e.sim.SetFaults(paysim.Faults{Latency: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	// Offsets: capture of every session, then refund 1 of every session, ...
	// Capture and refund topics differ, so one record order is forced by
	// producing round by round and waiting for each round to be on the log.
	var order []string // keys in intended order
	sessionOf := map[string]string{}
	for round := range refunds + 1 {
		var recs []*kgo.Record
		for i, id := range ids {
			k := fmt.Sprintf("ord-%s-%d-%d", e.id, i, round)
			order, sessionOf[k] = append(order, k), id
			if round == 0 {
				recs = append(recs, e.command(codec.KindCapture, k, fmt.Sprintf(`{"session_id":%q,"amount":6000,"currency":"rub"}`, id)))
			} else {
				recs = append(recs, e.command(codec.KindRefund, k, fmt.Sprintf(`{"session_id":%q,"amount":1000,"currency":"rub"}`, id)))
			}
		}
		e.produce(t, recs...)
	}
	e.start(t, nil)
	e.out.count(t, len(order), 60*time.Second)
	for _, k := range order {
		if res := e.out.result(t, k, time.Second); res.Status != codec.StatusAccepted {
			t.Errorf("%s: %s %s %s", k, res.Status, deref(res.ErrorCode), deref(res.ErrorDescription))
		}
	}
	// The sandbox's execution record: per session, one call at a time, in
	// offset order; across sessions, calls overlapped.
	for _, id := range ids {
		execs, peak := e.sim.Executions(id)
		if peak != 1 {
			t.Errorf("session %s: %d calls in flight at once, want 1", id, peak)
		}
		var got []string
		for _, x := range execs {
			if _, ours := sessionOf[x.IdempotencyKey]; ours {
				got = append(got, x.IdempotencyKey)
			}
		}
		var want []string
		for _, k := range order {
			if sessionOf[k] == id {
				want = append(want, k)
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("session %s executed %v, want offset order %v", id, got, want)
		}
	}
	calls := e.proxy.forwarded()
	checkSessionOrder(t, calls, order, sessionOf)
	if n := maxOverlap(calls, sessionOf); n < 2 {
		t.Errorf("at most %d sessions in flight at once: sessions did not overlap", n)
	} else {
		t.Logf("up to %d sessions executed concurrently", n)
	}
}

// checkSessionOrder asserts that, per session, the first execution of each
// key starts after the previous key's execution ended, in offset order.
func checkSessionOrder(t *testing.T, calls []call, order []string, sessionOf map[string]string) {
	t.Helper()
	first := map[string]call{}
	for _, c := range calls {
		if _, ok := sessionOf[c.Key]; ok && c.Status == 200 {
			if f, seen := first[c.Key]; !seen || c.Start.Before(f.Start) {
				first[c.Key] = c
			}
		}
	}
	last := map[string]call{}
	for _, k := range order {
		c, ok := first[k]
		if !ok {
			t.Errorf("%s never executed", k)
			continue
		}
		s := sessionOf[k]
		if prev, ok := last[s]; ok && c.Start.Before(prev.End) {
			t.Errorf("session %s: %s started before %s ended", s, k, prev.Key)
		}
		last[s] = c
	}
}

// maxOverlap returns the most distinct sessions executing at one instant.
func maxOverlap(calls []call, sessionOf map[string]string) int {
	type ev struct {
		at    time.Time
		delta int
	}
	var evs []ev
	for _, c := range calls {
		if _, ok := sessionOf[c.Key]; ok && strings.HasPrefix(c.Path, "/api/") {
			evs = append(evs, ev{c.Start, 1}, ev{c.End, -1})
		}
	}
	sort.Slice(evs, func(i, j int) bool {
		if evs[i].at.Equal(evs[j].at) {
			return evs[i].delta < evs[j].delta
		}
		return evs[i].at.Before(evs[j].at)
	})
	n, best := 0, 0
	for _, e := range evs {
		n += e.delta
		best = max(best, n)
	}
	return best
}
