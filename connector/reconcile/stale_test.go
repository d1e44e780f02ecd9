package reconcile

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// TestPendingSetMaxAge: a session that never settles is polled until it is
// MaxAge old (counted from created_at, or the earliest state read without
// one), then comes due once as stale; once the marker is on the topic it
// is never due again, whatever the clock says.
func TestPendingSetMaxAge(t *testing.T) {
	const maxAge = 72 * time.Hour
	open := func(created *time.Time, observed time.Time) *codec.SessionState {
		st := stateOf(session("ps_1", "in_progress", "", t0, "payout", 10), observed)
		st.Session.CreatedAt = created
		return st
	}
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	later := at(time.Hour)
	tests := []struct {
		name  string
		state *codec.SessionState
		at    time.Duration
		want  []action
	}{
		{"young: polled", open(&t0, t0), maxAge - time.Minute, []action{actPoll}},
		{"at max age: stale, not polled", open(&t0, t0), maxAge, []action{actStale}},
		{"age from created_at, not from a later observation", open(&t0, later), maxAge, []action{actStale}},
		{"no created_at: age from the state read", open(nil, later), maxAge, []action{actPoll}},
		{"no created_at, old enough", open(nil, later), maxAge + time.Hour, []action{actStale}},
		{"created_at in the future counts from the observation", open(ptr(at(100*time.Hour)), t0), maxAge, []action{actStale}},
		{"not due yet: nothing, even when old", open(&t0, at(maxAge)), maxAge + time.Minute, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPendingSet(ConfirmPolicy{Mode: ConfirmUpstream, Deadline: 240 * time.Minute, WarnBefore: 30 * time.Minute}, 5*time.Minute, maxAge)
			p.apply(tc.state, 0, t0)
			var got []action
			for _, task := range p.due(t0.Add(tc.at), 10) {
				got = append(got, task.act)
			}
			if len(got) != len(tc.want) || (len(got) == 1 && got[0] != tc.want[0]) {
				t.Fatalf("due = %v, want %v", got, tc.want)
			}
		})
	}

	t.Run("marked: never due again", func(t *testing.T) {
		p := newPendingSet(ConfirmPolicy{Mode: ConfirmUpstream, Deadline: 240 * time.Minute, WarnBefore: 30 * time.Minute}, 5*time.Minute, maxAge)
		r := &Reconciler{cfg: Config{QuietAfter: 5 * time.Minute, MaxBackoff: 30 * time.Minute}}
		p.apply(open(&t0, t0), 0, t0)
		now := at(maxAge)
		tasks := p.due(now, 10)
		if len(tasks) != 1 || tasks[0].act != actStale || !tasks[0].born.Equal(t0) {
			t.Fatalf("due = %+v, want one stale task born at t0", tasks)
		}
		p.done(tasks[0], now, false, r.backoff) // the marker's publish failed
		if n := len(p.due(now, 10)); n != 0 {
			t.Fatalf("%d tasks due right after a failed marker, want a backoff", n)
		}
		now = now.Add(10 * time.Minute)
		if tasks = p.due(now, 10); len(tasks) != 1 || tasks[0].act != actStale {
			t.Fatalf("due after backoff = %+v, want the stale task again", tasks)
		}
		p.done(tasks[0], now, true, r.backoff)
		// A newer, still open state read afterwards does not re-open it.
		newer := open(&t0, now)
		newer.Session.Status = "created"
		newer.Session.UpdatedAt = ptr(now)
		p.apply(newer, 0, t0)
		for d := time.Duration(0); d < 30*24*time.Hour; d += time.Hour {
			if tasks := p.due(now.Add(d), 10); len(tasks) != 0 {
				t.Fatalf("stale session due again %s later: %+v", d, tasks)
			}
		}
		if p.open() != 1 {
			t.Fatalf("open = %d: a stale session is still not final", p.open())
		}
	})
}

func ptr[T any](v T) *T { return &v }

// TestStaleMarkerOnTheTopic runs the reconciler on a session that never
// settles: it is polled while young, then, at MaxAge on the injected clock,
// its last state is published once with the stale marker instead of another
// poll; a reconciler that reads the topic afterwards (a restart, another
// replica) honours the marker and does not poll the session either.
func TestStaleMarkerOnTheTopic(t *testing.T) {
	const maxAge = 5 * time.Hour
	g := newRigWith(t, ConfirmPolicy{}, func(c *Config) { c.MaxAge = maxAge })
	s := session("ps_old", "in_progress", "", t0, "payout", 10)
	g.api.set(s)
	g.seed(t, s)
	waitFor(t, "loaded", func() bool { return g.rec.OpenSessions() == 1 })
	g.clock.Advance(5 * time.Minute)
	waitFor(t, "polled while young", func() bool { n, _ := g.api.counts("ps_old"); return n == 1 })
	waitFor(t, "poll ended", func() bool { return !g.isBusy(g.rec, "ps_old") })

	g.clock.Advance(maxAge)
	var markers []*kgo.Record
	waitFor(t, "stale marker published", func() bool {
		markers = markers[:0]
		for _, r := range g.published(t) {
			if IsStaleMarker(r.Headers) {
				markers = append(markers, r)
			}
		}
		return len(markers) > 0
	})
	waitFor(t, "marked in the pending set", func() bool { return g.isStale(g.rec, "ps_old") })
	if len(markers) != 1 {
		t.Fatalf("%d stale markers, want 1", len(markers))
	}
	var st codec.SessionState
	if err := json.Unmarshal(markers[0].Value, &st); err != nil || st.Session.ID != "ps_old" || st.Session.Status != "in_progress" {
		t.Fatalf("marker value %s (%v), want the last known state", markers[0].Value, err)
	}
	if got := header(markers[0], HeaderAgeFrom); got != t0.Format(time.RFC3339) {
		t.Fatalf("%s = %q, want %s", HeaderAgeFrom, got, t0.Format(time.RFC3339))
	}
	if n, _ := g.api.counts("ps_old"); n != 1 {
		t.Fatalf("polled %d times, want only the young poll", n)
	}
	if got := testutil.ToFloat64(g.rec.metrics.stale); got != 1 {
		t.Fatalf("stale counter %v, want 1", got)
	}

	// A reconciler that reads the topic from the start knows the session is
	// stale: nothing is due for it, however late.
	again := g.start(t, Config{Brokers: g.brokers, Producer: g.prod, Encoder: jsonEncoder{}, API: g.api,
		QuietAfter: 5 * time.Minute, MaxAge: maxAge, Tick: time.Hour, Now: g.clock.Now,
		Logger: g.rec.log, Group: "g-again-" + t.Name()})
	waitFor(t, "restarted reconciler read the marker", func() bool { return g.isStale(again, "ps_old") })
	if tasks := again.pending.due(g.clock.Now().Add(1000*time.Hour), 10); len(tasks) != 0 {
		t.Fatalf("stale session due after a restart: %+v", tasks)
	}
}

func (g *rig) isStale(r *Reconciler, id string) bool {
	r.pending.mu.Lock()
	defer r.pending.mu.Unlock()
	e, ok := r.pending.entries[id]
	return ok && e.stale
}

func (g *rig) isBusy(r *Reconciler, id string) bool {
	r.pending.mu.Lock()
	defer r.pending.mu.Unlock()
	e, ok := r.pending.entries[id]
	return ok && e.busy
}

func header(r *kgo.Record, key string) string {
	for _, h := range r.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}

// TestConfigMaxAge: MaxAge must outlast the confirmation deadline, so no
// session is abandoned while a timer of the service still runs.
func TestConfigMaxAge(t *testing.T) {
	base := Config{Brokers: []string{"k:9092"}, Producer: (*kgo.Client)(nil), Encoder: jsonEncoder{}, API: &fakeAPI{},
		Logger: slog.New(slog.DiscardHandler)}
	tests := []struct {
		name    string
		maxAge  time.Duration
		confirm time.Duration
		ok      bool
	}{
		{"default", 0, 0, true},
		{"above the default deadline", 5 * time.Hour, 0, true},
		{"at the default deadline", 240 * time.Minute, 0, false},
		{"below a configured deadline", 5 * time.Hour, 6 * time.Hour, false},
		{"negative", -time.Hour, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			c.MaxAge, c.Confirm.Deadline = tc.maxAge, tc.confirm
			err := c.Validate()
			if (err == nil) != tc.ok || (err != nil && !strings.Contains(err.Error(), "MaxAge")) {
				t.Fatalf("Validate() = %v, want ok %v naming MaxAge", err, tc.ok)
			}
		})
	}
}
