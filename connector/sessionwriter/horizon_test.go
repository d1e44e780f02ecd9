package sessionwriter

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// updateAt builds an update of session id updated at updatedAt, produced
// (record timestamp) at producedAt.
func updateAt(t *testing.T, id string, updatedAt, producedAt time.Time, status string, headers ...kgo.RecordHeader) *kgo.Record {
	t.Helper()
	st := codec.SessionState{Session: codec.Session{ID: id, Status: status, UpdatedAt: &updatedAt}, Source: codec.SourceWebhook}
	v, err := json.Marshal(&st)
	if err != nil {
		t.Fatal(err)
	}
	r := Update("u", id, v, headers...)
	r.Timestamp = producedAt
	return r
}

// TestDeriveBeyondTheHorizon: a session quiet beyond the horizon is
// forgotten; a new state of it (a chargeback weeks later) is written, a
// replay of one older than the horizon is not (nor its webhook event); a
// session written again within the horizon is remembered from its last
// write, so an old replay never puts it back.
func TestDeriveBeyondTheHorizon(t *testing.T) {
	const horizon = codec.DefaultHorizon
	now := t0
	w := testWriter(t, &now)
	part := newPartition()
	var j journal
	later := t0.Add(horizon + codec.ClockAllowance + 2*time.Minute) // ps_1's first write is beyond it
	steps := []struct {
		name   string
		at     time.Time // the writer's clock
		rec    *kgo.Record
		result string
		event  bool
	}{
		{"ps_1 first state", t0, updateAt(t, "ps_1", t0, t0, "in_progress", eventHeader("a1")), resultWritten, true},
		{"ps_2 first state", t0, updateAt(t, "ps_2", t0, t0, "in_progress"), resultWritten, false},
		{"ps_2 again within the horizon", t0.Add(horizon), updateAt(t, "ps_2", t0.Add(horizon), t0.Add(horizon), "pending"), resultWritten, false},
		{"ps_1 replay of a webhook older than the horizon: nothing", later,
			updateAt(t, "ps_1", t0, later, "in_progress", eventHeader("a0")), resultStale, false},
		{"ps_1 replay of an older one: nothing", later,
			updateAt(t, "ps_1", t0.Add(-time.Hour), later, "created", eventHeader("a00")), resultStale, false},
		{"ps_1 chargeback weeks later: written, with its event", later,
			updateAt(t, "ps_1", later.Add(-time.Minute), later, "accepted", eventHeader("a2")), resultWritten, true},
		{"ps_1 older than the chargeback, now remembered: older", later,
			updateAt(t, "ps_1", later.Add(-2*time.Minute), later, "in_progress"), resultOlder, false},
		{"ps_1 remembered, replay of a webhook older than the horizon: older, no event", later,
			updateAt(t, "ps_1", t0, later, "in_progress", eventHeader("a3")), resultOlder, false},
		{"ps_2 replay of its first state: older, not stale, not written", later,
			updateAt(t, "ps_2", t0, later, "in_progress"), resultOlder, false},
		{"ps_3 never seen, updated within the horizon", later,
			updateAt(t, "ps_3", later.Add(-horizon), later, "created"), resultWritten, false},
		{"ps_4 never seen, without updated_at: stale", later, func() *kgo.Record {
			r := updateAt(t, "ps_4", later, later, "created")
			r.Value = []byte(`{"session":{"id":"ps_4","status":"created"},"source":"webhook"}`)
			return r
		}(), resultStale, false},
	}
	for _, s := range steps {
		now = s.at
		d, err := w.derive(context.Background(), s.rec, part, &j, w.cutoffs())
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		written := s.result == resultWritten || s.result == resultRepublished
		if d.result != s.result || (d.state != nil) != written || (d.event != nil) != s.event {
			t.Fatalf("%s: result %s, state %v, event %v; want %s, %v, %v", s.name, d.result, d.state != nil, d.event != nil,
				s.result, written, s.event)
		}
	}
}

// TestSweepForgetsQuietSessions: the sweep deletes the sessions written
// before the cutoff, with their traces, at most once a minute, and a map
// that fell far below its peak is made anew.
func TestSweepForgetsQuietSessions(t *testing.T) {
	x := newIndex()
	part := newPartition()
	x.set(0, part)
	const n = 4000
	for i := range n {
		id := fmt.Sprintf("ps_%d", i)
		if i%2 == 1 {
			id = fmt.Sprintf("other-%d", i) // kept under its string
		}
		wrote := t0.Add(time.Duration(i) * time.Second)
		part.versions.set(id, remembered{wrote: wrote.UnixMilli()})
		part.traces.set(id, sessionTrace{})
	}
	cut := t0.Add(3900 * time.Second).UnixMilli() // keeps the last 100
	if got := x.sweep(t0, cut, 0); got != n-100 {
		t.Fatalf("sweep deleted %d sessions, want %d", got, n-100)
	}
	if part.versions.len() != 100 || part.traces.len() != 100 {
		t.Fatalf("after the sweep: %d versions, %d traces; want 100 each", part.versions.len(), part.traces.len())
	}
	if part.versions.peak != 100 {
		t.Fatalf("peak after the sweep = %d: the maps were not made anew", part.versions.peak)
	}
	if _, ok := part.version("ps_3998", cut); !ok {
		t.Fatal("a session written after the cutoff was forgotten")
	}
	part.versions.set("ps_1", remembered{wrote: 0})
	if got := x.sweep(t0.Add(30*time.Second), cut, 0); got != 0 {
		t.Fatalf("a second sweep within a minute deleted %d sessions", got)
	}
	if _, ok := part.version("ps_1", cut); ok {
		t.Fatal("a session written before the cutoff counts as remembered before the sweep deletes it")
	}
	if got := x.sweep(t0.Add(time.Minute), cut, 0); got != 1 {
		t.Fatalf("the sweep a minute later deleted %d sessions, want 1", got)
	}
}

func TestNumberOfKeepsOnlyCanonicalIDs(t *testing.T) {
	cases := []struct {
		id   string
		n    uint64
		isNo bool
	}{
		{"ps_1", 1, true},
		{"ps_0", 0, true},
		{"ps_18446744073709551615", 18446744073709551615, true},
		{"ps_18446744073709551616", 0, false}, // does not fit
		{"ps_01", 0, false},                   // would come back as ps_1
		{"ps_+1", 0, false},
		{"ps_", 0, false},
		{"ps_1a", 0, false},
		{"PS_1", 0, false},
		{"pm_1", 0, false},
	}
	for _, c := range cases {
		n, ok := numberOf(c.id)
		if ok != c.isNo || n != c.n {
			t.Errorf("numberOf(%q) = %d, %v; want %d, %v", c.id, n, ok, c.n, c.isNo)
		}
	}
	m := newSessionMap[int]()
	m.set("ps_7", 1)
	m.set("ps_07", 2)
	if v, _ := m.get("ps_7"); v != 1 {
		t.Errorf("ps_7 = %d, want 1: ps_07 must not share its entry", v)
	}
	if v, _ := m.get("ps_07"); v != 2 {
		t.Errorf("ps_07 = %d, want 2", v)
	}
}

// BenchmarkSessionMemory reports the heap a partition holds per
// remembered session (the chart README's sizing uses it).
func BenchmarkSessionMemory(b *testing.B) {
	const n = 200000
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		part := newPartition()
		for i := range n {
			part.versions.set(fmt.Sprintf("ps_%d", 1000000+i), remembered{wrote: int64(i)})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "bytes/session")
		runtime.KeepAlive(part)
	}
}
