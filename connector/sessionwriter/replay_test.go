package sessionwriter

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// TestReplayAfterTheEventWindowWritesNoEvent: a signed webhook sent again
// once its event id has left the event window (24 h) is recognised as a
// replay because the writer already holds a state of its session at least
// as new, and writes no event (issue 38 item 4: on the code before, it
// was published again as a new event). A webhook within the window whose
// state is older than the session's last one is a late first delivery,
// and its event is written.
func TestReplayAfterTheEventWindowWritesNoEvent(t *testing.T) {
	now := t0.Add(time.Hour)
	w := testWriter(t, &now)
	part := newPartition()
	derive := func(r *kgo.Record) derived {
		t.Helper()
		var j journal
		d, err := w.derive(context.Background(), r, part, &j, w.cutoffs())
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := derive(update(t, 1, "in_progress", eventHeader("ready"))); d.event == nil {
		t.Fatal("first webhook: no event")
	}
	if d := derive(update(t, 5, "accepted", eventHeader("finished"))); d.event == nil {
		t.Fatal("second webhook: no event")
	}
	if d := derive(update(t, 3, "in_progress", eventHeader("late"))); d.event == nil || d.state != nil {
		t.Fatalf("a late first delivery within the window: event %v, state %v; want its event, not its state", d.event != nil, d.state != nil)
	}

	now = t0.Add(w.cfg.EventWindow + 2*time.Hour) // every id above left the window
	tests := []struct {
		name string
		rec  *kgo.Record
	}{
		{"the last webhook replayed", update(t, 5, "accepted", eventHeader("finished"))},
		{"an older webhook replayed", update(t, 1, "in_progress", eventHeader("ready"))},
		{"the last webhook re-serialized (same id)", update(t, 5, "accepted", eventHeader("finished"))},
	}
	for _, tc := range tests {
		d := derive(tc.rec)
		if d.event != nil || d.state != nil || !d.staleEvent {
			t.Errorf("%s after the window: event %v, state %v, stale %v; want no event, no state, counted stale",
				tc.name, d.event != nil, d.state != nil, d.staleEvent)
		}
	}
	if d := derive(update(t, 24*60+90, "accepted", eventHeader("refunded"))); d.event == nil || d.state == nil {
		t.Fatalf("a newer webhook after the window: event %v, state %v; want both", d.event != nil, d.state != nil)
	}
}

// TestSessionProjectIsTheProjectItsStatesName: the ingress's local lookup
// answers for the sessions of the writer's partitions only, with the
// project their states name, kept when a newer state names none.
func TestSessionProjectIsTheProjectItsStatesName(t *testing.T) {
	w := testWriter(t, nil)
	part := newPartition()
	w.index.set(2, part)
	named := func(min int, project *string) *kgo.Record {
		r := update(t, min, "in_progress")
		var st codec.SessionState
		if err := json.Unmarshal(r.Value, &st); err != nil {
			t.Fatal(err)
		}
		st.Project = project
		r.Value, _ = json.Marshal(&st)
		return r
	}
	pa := "proj-a"
	var j journal
	for _, r := range []*kgo.Record{named(1, &pa), named(2, nil)} {
		if _, err := w.derive(context.Background(), r, part, &j, w.cutoffs()); err != nil {
			t.Fatal(err)
		}
	}
	if p, ok := w.SessionProject("ps_1"); !ok || p == nil || *p != pa {
		t.Fatalf("SessionProject(ps_1) = %v, %v; want %s, true", p, ok, pa)
	}
	if p, ok := w.SessionProject("ps_2"); ok {
		t.Fatalf("SessionProject of a session never written = %v, true; want not known", p)
	}
	w.index.drop(2)
	if _, ok := w.SessionProject("ps_1"); ok {
		t.Fatal("SessionProject answers for a partition the writer no longer owns")
	}
}

// TestSessionProjectWhileWriting: the ingress's lookups run on HTTP
// goroutines while the writer's loop writes, takes back and sweeps the
// same partition (run with -race).
func TestSessionProjectWhileWriting(t *testing.T) {
	now := t0.Add(time.Hour)
	w := testWriter(t, &now)
	part := newPartition()
	w.index.set(2, part)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				w.SessionProject("ps_1")
			}
		}
	}()
	for i := range 200 {
		var j journal
		if _, err := w.derive(context.Background(), update(t, i, "in_progress"), part, &j, w.cutoffs()); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			j.undo()
		}
		part.sweep(0, 0)
	}
	close(stop)
	<-done
	if _, ok := w.SessionProject("ps_1"); !ok {
		t.Fatal("session not held after the writes")
	}
}
