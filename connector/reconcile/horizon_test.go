package reconcile

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// TestPendingSetForget: a session is forgotten once its last record (the
// latest stamped of every record read of it, newer state or not) is older
// than the horizon plus the clock allowance, stale-marked or not.
func TestPendingSetForget(t *testing.T) {
	const horizon = 7 * 24 * time.Hour
	now := t0.Add(30 * 24 * time.Hour)
	edge := codec.ForgetBefore(now, horizon)
	state := func(updated time.Time) *codec.SessionState {
		return stateOf(session("ps_1", "in_progress", "", updated, "payout", 10), updated)
	}
	type read struct {
		state *codec.SessionState
		at    time.Time // the record's timestamp
	}
	tests := []struct {
		name  string
		reads []read
		stale bool
		kept  bool
	}{
		{"last record within the horizon", []read{{state(t0), edge.Add(time.Second)}}, false, true},
		{"last record at the edge", []read{{state(t0), edge}}, false, true},
		{"last record before the edge", []read{{state(t0), edge.Add(-time.Second)}}, false, false},
		{"within the horizon but not the allowance", []read{{state(t0), now.Add(-horizon - time.Minute)}}, false, true},
		{"stale-marked, old", []read{{state(t0), edge.Add(-time.Hour)}}, true, false},
		{"stale-marked, recent", []read{{state(t0), edge.Add(time.Hour)}}, true, true},
		{"an old state in a recent record counts as recent",
			[]read{{state(t0.Add(time.Hour)), edge.Add(-time.Hour)}, {state(t0), edge.Add(time.Hour)}}, false, true},
		{"an older record read later does not make it younger",
			[]read{{state(t0), edge.Add(time.Hour)}, {state(t0.Add(time.Hour)), edge.Add(-time.Hour)}}, false, true},
		{"newest record old", []read{{state(t0), edge.Add(-2 * time.Hour)}, {state(t0.Add(time.Hour)), edge.Add(-time.Hour)}}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPendingSet(ConfirmPolicy{Deadline: 240 * time.Minute, WarnBefore: 30 * time.Minute}, time.Minute, 72*time.Hour)
			for _, r := range tc.reads {
				p.apply(r.state, 0, r.at)
			}
			if tc.stale {
				p.markStale(codec.VersionOf(tc.reads[len(tc.reads)-1].state))
			}
			n := p.forget(edge)
			if kept := p.open() == 1; kept != tc.kept || kept == (n == 1) {
				t.Fatalf("kept %v (forgot %d), want kept %v", kept, n, tc.kept)
			}
		})
	}
}

// TestSweepAboutOnceAMinute: the scan loop's sweep forgets what fell
// behind the horizon at most once every sweepEvery of the clock, and
// counts what it forgot.
func TestSweepAboutOnceAMinute(t *testing.T) {
	const horizon = 100 * time.Hour
	// The session's record falls behind the horizon at t0+horizon+allowance.
	behind := t0.Add(horizon + codec.ClockAllowance + time.Second)
	tests := []struct {
		name      string
		last, now time.Time
		forgotten bool
		swept     time.Time // what sweep returns
	}{
		{"first sweep, nothing behind", time.Time{}, t0, false, t0},
		{"first sweep, one behind", time.Time{}, behind, true, behind},
		{"less than a minute after the last", behind.Add(-sweepEvery + time.Second), behind, false, behind.Add(-sweepEvery + time.Second)},
		{"a minute after the last", behind.Add(-sweepEvery), behind, true, behind},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := New(Config{Brokers: []string{"k:9092"}, Producer: (*kgo.Client)(nil), Encoder: jsonEncoder{}, API: &fakeAPI{},
				Logger: slog.New(slog.DiscardHandler), Horizon: horizon, Now: (&fakeClock{now: t0}).Now})
			if err != nil {
				t.Fatal(err)
			}
			r.pending.apply(stateOf(session("ps_1", "in_progress", "", t0, "payout", 10), t0), 0, t0)
			if got := r.sweep(tc.now, tc.last); !got.Equal(tc.swept) {
				t.Errorf("sweep returned %s, want %s", got, tc.swept)
			}
			if forgot := r.OpenSessions() == 0; forgot != tc.forgotten {
				t.Errorf("forgotten %v, want %v", forgot, tc.forgotten)
			}
			if got, want := testutil.ToFloat64(r.metrics.forgotten), map[bool]float64{true: 1}[tc.forgotten]; got != want {
				t.Errorf("forgotten counter %v, want %v", got, want)
			}
		})
	}
}

// TestConfigHorizon: the horizon must outlast MaxAge, so that while the
// connector runs only sessions settled or marked stale fall behind it.
func TestConfigHorizon(t *testing.T) {
	base := Config{Brokers: []string{"k:9092"}, Producer: (*kgo.Client)(nil), Encoder: jsonEncoder{}, API: &fakeAPI{},
		Logger: slog.New(slog.DiscardHandler)}
	tests := []struct {
		name             string
		horizon, maxAge  time.Duration
		ok               bool
		wantDefaultAfter time.Duration // Horizon after defaults, when ok
	}{
		{"defaults", 0, 0, true, codec.DefaultHorizon},
		{"above MaxAge", 100 * time.Hour, 0, true, 100 * time.Hour},
		{"at the default MaxAge", DefaultMaxAge, 0, false, 0},
		{"below MaxAge", 24 * time.Hour, 0, false, 0},
		{"default below a long MaxAge", 0, 8 * 24 * time.Hour, false, 0},
		{"above a long MaxAge", 9 * 24 * time.Hour, 8 * 24 * time.Hour, true, 9 * 24 * time.Hour},
		{"negative", -time.Hour, 0, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			c.Horizon, c.MaxAge = tc.horizon, tc.maxAge
			err := c.Validate()
			if (err == nil) != tc.ok || (err != nil && !strings.Contains(err.Error(), "Horizon")) {
				t.Fatalf("Validate() = %v, want ok %v naming Horizon", err, tc.ok)
			}
			if !tc.ok {
				return
			}
			c.defaults()
			if c.Horizon != tc.wantDefaultAfter {
				t.Fatalf("Horizon %s after defaults, want %s", c.Horizon, tc.wantDefaultAfter)
			}
		})
	}
}

// TestReconcilerReadsFromTheHorizon: on assignment each partition is read
// from its first record within the horizon, not from the start: the
// sessions of older records are not held, a partition with nothing within
// the horizon counts as read, and readiness comes once the rest is read.
// What is held is forgotten once its records fall behind the horizon on
// the clock, stale-marked sessions included.
func TestReconcilerReadsFromTheHorizon(t *testing.T) {
	const horizon = 100 * time.Hour
	brokers, _ := newKafka(t, topic)
	prod, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(prod.Close)
	old := t0.Add(-horizon - codec.ClockAllowance - time.Minute)
	recent := t0.Add(-time.Hour)
	produce := func(id string, part int32, at time.Time, headers ...kgo.RecordHeader) {
		t.Helper()
		v, _ := json.Marshal(stateOf(session(id, "in_progress", "", at, "payout", 10), at))
		rec := &kgo.Record{Key: []byte(id), Value: v, Partition: part, Timestamp: at, Headers: headers}
		if err := prod.ProduceSync(context.Background(), rec).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	produce("ps_old_0", 0, old) // partition 0: nothing within the horizon
	produce("ps_old_1", 1, old) // partition 1: old, then recent
	produce("ps_recent", 1, recent)
	produce("ps_recent_stale", 1, recent, kgo.RecordHeader{Key: HeaderWarning, Value: []byte(WarningStale)})
	// Partition 2 is empty.

	clock := &fakeClock{now: t0}
	g := &rig{api: &fakeAPI{statuses: map[string]int{}}, clock: clock, prod: prod, brokers: brokers}
	rec := g.start(t, Config{Brokers: brokers, Producer: prod, Encoder: jsonEncoder{}, API: g.api,
		QuietAfter: 30 * 24 * time.Hour, // never due: only the horizon removes sessions here
		Horizon:    horizon, Tick: 10 * time.Millisecond, Now: clock.Now,
		Logger: slog.New(slog.DiscardHandler), Group: "g-" + t.Name(), SessionsTopic: topic, UpdatesTopic: topic})
	waitFor(t, "ready", func() bool { return rec.Ready(context.Background()) == nil })
	if n := rec.OpenSessions(); n != 2 {
		t.Fatalf("holds %d sessions after reading, want the 2 recent ones", n)
	}
	if !g.isStale(rec, "ps_recent_stale") {
		t.Fatal("the stale marker within the horizon was not read")
	}

	clock.Advance(horizon + codec.ClockAllowance) // the recent records fall behind the horizon
	waitFor(t, "recent sessions forgotten", func() bool { return rec.OpenSessions() == 0 })
	if got := testutil.ToFloat64(rec.metrics.forgotten); got != 2 {
		t.Fatalf("forgotten counter %v, want 2", got)
	}
	if polls, _ := g.api.counts("ps_recent"); polls != 0 {
		t.Fatalf("polled %d times, want none", polls)
	}
}
