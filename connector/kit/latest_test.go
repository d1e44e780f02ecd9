package kit_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paysession/paysession/connector/kit"
	"github.com/paysession/paysession/internal/codec"
)

// clock is a fake clock for LatestConfig.Now.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func newLatest(t testing.TB, cfg kit.LatestConfig, c *clock) *kit.Latest {
	t.Helper()
	cfg.Now = c.Now
	l, err := kit.NewLatestWith(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// sessionAt is a state of session id, updated at at (none when at is zero).
func sessionAt(id, status string, at time.Time) *kit.SessionState {
	s := &kit.SessionState{Session: kit.Session{ID: id, Status: status}}
	if !at.IsZero() {
		s.Session.UpdatedAt = &at
	}
	return s
}

// TestLatestHorizon: a session is held while its newest state is within
// the horizon and at most MaxSessions are held; a state of a session not
// held is kept only when within the horizon and later than every state
// let go of.
func TestLatestHorizon(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	const day = 24 * time.Hour
	type step struct {
		advance time.Duration // the clock, before the offer
		id      string
		status  string
		at      time.Duration // updated_at, from t0; -1: none
		kept    bool
		held    string // the sessions held after the step, by id
	}
	tests := []struct {
		name  string
		cfg   kit.LatestConfig
		steps []step
	}{
		{"a session is forgotten past the horizon", kit.LatestConfig{}, []step{
			{0, "a", "in_progress", 0, true, "a"},
			{7 * day, "b", "created", 7 * day, true, "a b"}, // a's newest state exactly 7 days old: held
			{time.Nanosecond, "c", "created", 7 * day, true, "b c"},
		}},
		{"a newer state keeps a session", kit.LatestConfig{}, []step{
			{0, "a", "in_progress", 0, true, "a"},
			{6 * day, "a", "accepted", 6 * day, true, "a"},
			{6 * day, "b", "created", 12 * day, true, "a b"},
			{2 * day, "c", "created", 14 * day, true, "b c"},
		}},
		{"an old state of a forgotten session is stale", kit.LatestConfig{}, []step{
			{0, "a", "in_progress", 0, true, "a"},
			{time.Minute, "a", "accepted", time.Minute, true, "a"},
			{8 * day, "a", "accepted", time.Minute, false, ""}, // read again
			{0, "a", "in_progress", 0, false, ""},              // read late
		}},
		{"a new state of a forgotten session is kept (chargeback)", kit.LatestConfig{}, []step{
			{0, "a", "accepted", 0, true, "a"},
			{30 * day, "a", "accepted", 30 * day, true, "a"},
			{0, "a", "accepted", 30 * day, false, "a"},
		}},
		{"a session never seen", kit.LatestConfig{Horizon: day}, []step{
			{2 * day, "a", "created", day, true, "a"},              // exactly a day old
			{0, "b", "created", day - time.Nanosecond, false, "a"}, // older than the horizon
			{0, "c", "created", -1, false, "a"},                    // no updated_at
		}},
		{"MaxSessions forgets the oldest updated_at first", kit.LatestConfig{MaxSessions: 2}, []step{
			{0, "a", "created", 0, true, "a"},
			{0, "b", "created", 2 * time.Second, true, "a b"},
			{0, "c", "created", time.Second, true, "b c"},         // a goes, the oldest
			{0, "a", "in_progress", 0, false, "b c"},              // not later than a's state let go
			{0, "a", "in_progress", time.Second / 2, true, "b c"}, // later, but the oldest: let go at once
			{0, "a", "accepted", time.Second / 2, false, "b c"},   // so even a higher rank is refused
			{0, "c", "in_progress", 3 * time.Second, true, "b c"}, // c is now newer than b
			{0, "d", "created", 4 * time.Second, true, "c d"},     // so b goes, not c
			{0, "b", "accepted", 5 * time.Second, true, "b d"},    // later than every state let go
		}},
		{"NoHorizon refuses no state for its age", kit.LatestConfig{Horizon: kit.NoHorizon, MaxSessions: 1}, []step{
			{3650 * day, "a", "created", 0, true, "a"},
			{0, "b", "created", time.Second, true, "b"},
			{0, "a", "accepted", 0, false, "b"}, // not later than a's state let go
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &clock{t0}
			l := newLatest(t, tt.cfg, c)
			for i, s := range tt.steps {
				c.now = c.now.Add(s.advance)
				var at time.Time
				if s.at >= 0 {
					at = t0.Add(s.at)
				}
				if got := l.Offer(sessionAt(s.id, s.status, at)); got != s.kept {
					t.Fatalf("step %d: Offer(%s %s) = %v, want %v", i, s.id, s.status, got, s.kept)
				}
				if got := heldIDs(l); got != s.held {
					t.Fatalf("step %d: held %q, want %q", i, got, s.held)
				}
			}
		})
	}
}

// heldIDs lists the sessions of a..z held by l.
func heldIDs(l *kit.Latest) string {
	var ids []string
	for c := 'a'; c <= 'z'; c++ {
		if _, ok := l.Get(string(c)); ok {
			ids = append(ids, string(c))
		}
	}
	if len(ids) != l.Len() {
		return fmt.Sprintf("%v of Len %d", ids, l.Len())
	}
	return strings.Join(ids, " ")
}

// TestLatestStaysBounded: a consumer that reads the compacted sessions
// topic from the start, then follows it for months, holds the sessions of
// the horizon, not every session ever made.
func TestLatestStaysBounded(t *testing.T) {
	const week = int(codec.DefaultHorizon / time.Hour) // 7 days
	t.Run("reading the topic from the start", func(t *testing.T) {
		l := kit.NewLatest() // the defaults, on time.Now
		now := time.Now()
		for i := range 1000 { // a session an hour, the newest last
			l.Offer(sessionAt(fmt.Sprint("ps_", i), "accepted", now.Add(time.Duration(i-1000)*time.Hour)))
		}
		if got := l.Len(); got < week-1 || got > week {
			t.Fatalf("Len = %d, want the %d sessions of the last 7 days", got, week)
		}
	})
	t.Run("following the topic", func(t *testing.T) {
		c := &clock{time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)}
		l := newLatest(t, kit.LatestConfig{}, c)
		for i := range 100 * 24 {
			c.now = c.now.Add(time.Hour)
			if !l.Offer(sessionAt(fmt.Sprint("ps_", i), "created", c.now)) {
				t.Fatalf("session %d refused", i)
			}
			if got := l.Len(); got > week+1 {
				t.Fatalf("hour %d: Len = %d, want at most %d", i, got, week+1)
			}
		}
	})
}

// TestLatestForget: Forget drops one session and leaves the others, and
// their order by age, as they were; it does not make the session's older
// states stale (the caveat in its doc).
func TestLatestForget(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	c := &clock{t0}
	l := newLatest(t, kit.LatestConfig{Horizon: time.Hour}, c)
	for i, id := range []string{"a", "b", "c", "d"} {
		l.Offer(sessionAt(id, "created", t0.Add(time.Duration(i)*time.Minute)))
	}
	l.Forget("b")
	l.Forget("z") // not held: nothing
	if got := heldIDs(l); got != "a c d" {
		t.Fatalf("held %q after Forget(b)", got)
	}
	if !l.Offer(sessionAt("b", "created", t0)) {
		t.Fatal("after Forget, an older state of the session within the horizon is refused")
	}
	c.now = t0.Add(time.Hour + 90*time.Second) // a and b past the horizon
	if got := heldIDs(l); got != "c d" {
		t.Fatalf("held %q, want c d", got)
	}
}

// TestLatestConfig: Validate names every invalid field.
func TestLatestConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  kit.LatestConfig
		want []string // fields named; none: valid
	}{
		{"defaults", kit.LatestConfig{}, nil},
		{"bounded", kit.LatestConfig{Horizon: time.Hour, MaxSessions: 10}, nil},
		{"NoHorizon with a bound", kit.LatestConfig{Horizon: kit.NoHorizon, MaxSessions: 10}, nil},
		{"negative", kit.LatestConfig{Horizon: -time.Second, MaxSessions: -1}, []string{"Horizon", "MaxSessions"}},
		{"NoHorizon without a bound", kit.LatestConfig{Horizon: kit.NoHorizon}, []string{"MaxSessions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := kit.NewLatestWith(tt.cfg)
			if (err == nil) != (tt.want == nil) {
				t.Fatalf("NewLatestWith: %v", err)
			}
			for _, field := range tt.want {
				if !strings.Contains(err.Error(), field+":") {
					t.Errorf("error %q does not name %s", err, field)
				}
			}
		})
	}
}

// TestLatestConcurrent offers states of the same sessions from several
// goroutines: the newest of each is held at the end (run with -race).
func TestLatestConcurrent(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	c := &clock{t0.Add(time.Hour)}
	l := newLatest(t, kit.LatestConfig{MaxSessions: 50}, c)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 1000 {
				id := fmt.Sprint("ps_", i%50)
				l.Offer(sessionAt(id, "in_progress", t0.Add(time.Duration(i*4+g)*time.Millisecond)))
				l.Get(id)
				l.Len()
			}
		})
	}
	wg.Wait()
	for i := range 50 {
		s, ok := l.Get(fmt.Sprint("ps_", i))
		want := t0.Add(time.Duration((950+i)*4+3) * time.Millisecond)
		if !ok || !s.Session.UpdatedAt.Equal(want) {
			t.Fatalf("ps_%d: held %v, want updated_at %v", i, ok, want)
		}
	}
}

// BenchmarkLatestMemory measures the bytes a Latest takes per session
// held, its own (B/session) and those of a typical state it holds: a
// decoded state with one payout operation (state-B/session).
func BenchmarkLatestMemory(b *testing.B) {
	const n = 100_000
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	value := mustSingleObject(typicalState(at))
	dec, err := kit.NewDecoder(kit.DecoderConfig{})
	if err != nil {
		b.Fatal(err)
	}
	decode := func(i int) *kit.SessionState {
		var s kit.SessionState
		if err := dec.Decode(b.Context(), value, &s); err != nil {
			b.Fatal(err)
		}
		s.Session.ID = fmt.Sprintf("ps_%032d", i) // a UUID's length
		return &s
	}
	var stateBytes, latestBytes float64
	for b.Loop() {
		before := heapBytes()
		states := make([]*kit.SessionState, n)
		for i := range states {
			states[i] = decode(i)
		}
		mid := heapBytes()
		l := newLatest(b, kit.LatestConfig{}, &clock{at})
		for _, s := range states {
			l.Offer(s)
		}
		after := heapBytes()
		stateBytes = float64(mid-before) / n
		latestBytes = float64(after-mid) / n
		runtime.KeepAlive(l)
		runtime.KeepAlive(states)
	}
	b.ReportMetric(latestBytes, "B/session")
	b.ReportMetric(stateBytes, "state-B/session")
}

func heapBytes() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// typicalState is a session state as the connector writes it for a card
// payout that succeeded.
func typicalState(at time.Time) *kit.SessionState {
	amount, fee := int64(250000), int64(1250)
	return &kit.SessionState{
		Session: kit.Session{ID: "ps_00000000000000000000000000000000", Status: "accepted", CreatedAt: &at, UpdatedAt: &at,
			Operations: []kit.Operation{{Kind: kit.OperationPayout, ID: "po_00000000000000000000000000000000", Status: "succeeded",
				CreatedAt: &at, FinishedAt: &at, Amount: &amount, Currency: ptr("rub"), FeeAmount: &fee, FeeCurrency: ptr("rub"),
				RRN: ptr("123456789012"), AuthCode: ptr("A1B2C3"),
				Instrument:        &kit.InstrumentSummary{Type: "card", CardLast4: ptr("1111")},
				CustomerReference: ptr("payroll-2026-11-001")}}},
		Source: kit.SourceWebhook, ObservedAt: at, APIVersion: 2, IdempotencyKey: ptr("payroll-2026-11-001"),
	}
}
