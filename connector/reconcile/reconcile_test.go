package reconcile

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/sessionstate"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

const topic = "payments.sessions"

func session(id, status, next string, updated time.Time, kind string, amount int64) *payapi.Session {
	s := &payapi.Session{ID: id, Status: status, NextAction: next, CreatedAt: t0, UpdatedAt: updated}
	op := payapi.Operation{ID: "op_" + id, Status: "pending", Amount: &payapi.Amount{Value: amount, Currency: "rub"}}
	if status == "accepted" {
		op.Status = "succeeded"
	}
	if kind == "payout" {
		s.Payouts = []payapi.Operation{op}
	} else {
		s.Payments = []payapi.Operation{op}
	}
	return s
}

func stateOf(s *payapi.Session, observed time.Time) *codec.SessionState {
	return sessionstate.FromAPI(s, string(codec.SourceAPIResponse), observed, 1)
}

func TestPendingSetDue(t *testing.T) {
	quiet := 5 * time.Minute
	auto := ConfirmPolicy{Mode: ConfirmAuto, AutoKinds: []codec.OperationKind{"payout"}, AutoMaxAmount: 1000}
	tests := []struct {
		name   string
		policy ConfirmPolicy
		state  *codec.SessionState
		at     time.Duration // after t0
		want   []action      // nil: nothing due
	}{
		{"fresh session not due", ConfirmPolicy{}, stateOf(session("ps_1", "in_progress", "", t0, "payout", 10), t0), 4 * time.Minute, nil},
		{"quiet session due", ConfirmPolicy{}, stateOf(session("ps_1", "in_progress", "", t0, "payout", 10), t0), 5 * time.Minute, []action{actPoll}},
		{"final session never due", ConfirmPolicy{}, stateOf(session("ps_1", "accepted", "", t0, "payout", 10), t0), 24 * time.Hour, nil},
		{"waiting for confirm: poll before warning", ConfirmPolicy{}, stateOf(session("ps_1", "in_progress", "confirm", t0, "payout", 10), t0), 209 * time.Minute, []action{actPoll}},
		{"waiting for confirm: warning at 210m", ConfirmPolicy{}, stateOf(session("ps_1", "in_progress", "confirm", t0, "payout", 10), t0), 210 * time.Minute, []action{actWarn}},
		{"auto confirm at once", auto, stateOf(session("ps_1", "in_progress", "confirm", t0, "payout", 1000), t0), 0, []action{actConfirm}},
		{"auto mode, amount above limit waits", auto, stateOf(session("ps_1", "in_progress", "confirm", t0, "payout", 1001), t0), 0, nil},
		{"auto mode, kind not allowed waits", auto, stateOf(session("ps_1", "in_progress", "confirm", t0, "payment", 10), t0), 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.policy.defaults()
			p := newPendingSet(tc.policy, quiet, 0)
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
}

func TestPendingSetBackoffAndOrder(t *testing.T) {
	p := newPendingSet(ConfirmPolicy{Deadline: 240 * time.Minute, WarnBefore: 30 * time.Minute, Mode: ConfirmUpstream}, time.Minute, 0)
	r := &Reconciler{cfg: Config{QuietAfter: time.Minute, MaxBackoff: 5 * time.Minute}}
	newer := stateOf(session("ps_1", "in_progress", "", t0.Add(time.Second), "payout", 1), t0)
	older := stateOf(session("ps_1", "created", "", t0, "payout", 1), t0)
	if !p.apply(newer, 0, t0) || p.apply(older, 0, t0) {
		t.Fatal("older state replaced a newer one")
	}
	now := t0.Add(time.Minute)
	for i, wantNext := range []time.Duration{2, 4, 5, 5} {
		tasks := p.due(now, 10)
		if len(tasks) != 1 {
			t.Fatalf("round %d: %d tasks due", i, len(tasks))
		}
		p.done(tasks[0], now, false, r.backoff)
		if len(p.due(now.Add(wantNext*time.Minute-time.Second), 10)) != 0 {
			t.Fatalf("round %d: due before backoff of %dm", i, wantNext)
		}
		now = now.Add(wantNext * time.Minute)
	}
	p.dropPartitions([]int32{0})
	if p.open() != 0 {
		t.Fatal("revoked partition kept")
	}
}

type rig struct {
	api     *fakeAPI
	clock   *fakeClock
	prod    *kgo.Client
	brokers []string
	rec     *Reconciler
}

func newRig(t *testing.T, policy ConfirmPolicy) *rig { return newRigWith(t, policy, nil) }

// newRigWith is newRig with a last say on the reconciler's config. The
// reconciler's updates go straight to the topic it reads (no session
// writer in between: every update is written).
func newRigWith(t *testing.T, policy ConfirmPolicy, mutate func(*Config)) *rig {
	t.Helper()
	brokers, prod := newKafka(t, topic)
	g := &rig{api: &fakeAPI{sessions: map[string]*payapi.Session{}, statuses: map[string]int{}}, clock: &fakeClock{now: t0},
		prod: prod, brokers: brokers}
	g.api.onConfirm = func(s *payapi.Session) {
		s.NextAction, s.UpdatedAt = "", s.UpdatedAt.Add(time.Second)
	}
	cfg := Config{
		Brokers: brokers, Producer: prod, Encoder: jsonEncoder{}, API: g.api, Confirm: policy,
		QuietAfter: 5 * time.Minute, Tick: 10 * time.Millisecond, Now: g.clock.Now,
		Logger: slog.New(slog.DiscardHandler), Group: "g-" + t.Name(), SessionsTopic: topic, UpdatesTopic: topic,
	}
	if mutate != nil {
		mutate(&cfg)
	}
	g.rec = g.start(t, cfg)
	return g
}

// start runs a reconciler of cfg until the test ends.
func (g *rig) start(t *testing.T, cfg Config) *Reconciler {
	t.Helper()
	rec, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = rec.Run(ctx) }()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return rec
}

func (g *rig) seed(t *testing.T, s *payapi.Session) {
	t.Helper()
	v, _ := json.Marshal(stateOf(s, g.clock.Now()))
	if err := g.prod.ProduceSync(context.Background(), &kgo.Record{Key: []byte(s.ID), Value: v}).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// published reads every record of the sessions topic.
func (g *rig) published(t *testing.T) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(g.brokers...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out []*kgo.Record
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		f := cl.PollFetches(ctx)
		cancel()
		if f.NumRecords() == 0 {
			return out
		}
		out = append(out, f.Records()...)
	}
}

func TestReconcilerPollsQuietSessionsToFinal(t *testing.T) {
	g := newRig(t, ConfirmPolicy{})
	for _, id := range []string{"ps_1", "ps_2", "ps_3"} {
		g.seed(t, session(id, "in_progress", "", t0, "payout", 100))
		g.api.set(session(id, "accepted", "", t0.Add(time.Minute), "payout", 100))
	}
	g.seed(t, session("ps_gone", "in_progress", "", t0, "payout", 1))
	waitFor(t, "pending set loaded", func() bool { return g.rec.OpenSessions() == 4 })
	g.clock.Advance(4 * time.Minute)
	time.Sleep(50 * time.Millisecond) // several ticks: nothing is due yet
	if n, _ := g.api.counts("ps_1"); n != 0 {
		t.Fatalf("polled %d times before QuietAfter", n)
	}
	g.clock.Advance(time.Minute)
	waitFor(t, "every session final or dropped", func() bool { return g.rec.OpenSessions() == 0 })
	finals := 0
	for _, r := range g.published(t) {
		var st codec.SessionState
		json.Unmarshal(r.Value, &st)
		if st.Source == codec.SourcePoll {
			if st.Session.Status != "accepted" {
				t.Fatalf("poll published %s", st.Session.Status)
			}
			finals++
		}
	}
	if finals != 3 {
		t.Fatalf("published %d final poll states, want 3", finals)
	}
}

func TestAutoConfirmOnceByRules(t *testing.T) {
	g := newRig(t, ConfirmPolicy{Mode: ConfirmAuto, AutoKinds: []codec.OperationKind{"payout"}, AutoMaxAmount: 5000})
	small := session("ps_small", "in_progress", "confirm", t0, "payout", 5000)
	big := session("ps_big", "in_progress", "confirm", t0, "payout", 5001)
	for _, s := range []*payapi.Session{small, big} {
		g.api.set(s)
		g.seed(t, s)
	}
	waitFor(t, "small confirmed", func() bool { _, c := g.api.counts("ps_small"); return c == 1 })
	waitFor(t, "confirmation published", func() bool { return g.rec.OpenSessions() == 2 && len(g.published(t)) == 3 })
	time.Sleep(50 * time.Millisecond)
	if _, c := g.api.counts("ps_small"); c != 1 {
		t.Fatalf("confirmed %d times", c)
	}
	if _, c := g.api.counts("ps_big"); c != 0 {
		t.Fatal("amount above the limit was confirmed")
	}
	var found bool
	for _, r := range g.published(t) {
		var st codec.SessionState
		json.Unmarshal(r.Value, &st)
		if st.Session.ID == "ps_small" && st.Source == codec.SourceAPIResponse && st.IdempotencyKey != nil {
			found = *st.IdempotencyKey == confirmKey("ps_small", []string{"op_ps_small"}) && st.Session.NextAction == nil
		}
	}
	if !found {
		t.Fatal("no confirmation state published under the autoconfirm key")
	}
}

func TestConfirmDeadlineWarning(t *testing.T) {
	g := newRig(t, ConfirmPolicy{})
	s := session("ps_wait", "in_progress", "confirm", t0, "payout", 2000000)
	g.api.set(s)
	g.seed(t, s)
	waitFor(t, "loaded", func() bool { return g.rec.OpenSessions() == 1 })
	g.clock.Advance(210 * time.Minute)
	waitFor(t, "warning published", func() bool {
		for _, r := range g.published(t) {
			for _, h := range r.Headers {
				if h.Key == HeaderConfirmDeadline && string(h.Value) == t0.Add(240*time.Minute).Format(time.RFC3339) {
					return true
				}
			}
		}
		return false
	})
}

func TestConfigValidateNamesEveryField(t *testing.T) {
	err := Config{APIVersion: 3, QuietAfter: time.Hour, MaxBackoff: time.Minute, MaxInFlight: -1,
		Confirm: ConfirmPolicy{Mode: "sometimes"}}.Validate()
	if err == nil {
		t.Fatal("want error")
	}
	for _, f := range []string{"Brokers", "Producer", "Encoder", "API", "Logger", "APIVersion", "MaxBackoff", "MaxInFlight", "Mode"} {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error does not name %s: %v", f, err)
		}
	}
	for name, p := range map[string]ConfirmPolicy{
		"rules without auto": {AutoMaxAmount: 5},
		"auto without rules": {Mode: ConfirmAuto},
		"bad kind":           {Mode: ConfirmAuto, AutoKinds: []codec.OperationKind{"refund"}, AutoMaxAmount: 1},
	} {
		if p.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestSettled(t *testing.T) {
	confirm := "confirm"
	refund := func(status string) []codec.OperationRefund {
		return []codec.OperationRefund{{ID: "rf_1", Status: status}}
	}
	tests := []struct {
		name string
		s    codec.Session
		want bool
	}{
		{"accepted", codec.Session{Status: "accepted"}, true},
		{"accepted, operation succeeded", codec.Session{Status: "accepted", Operations: []codec.Operation{{Status: "succeeded"}}}, true},
		{"accepted, refund accepted", codec.Session{Status: "accepted", Operations: []codec.Operation{{Status: "succeeded", Refunds: refund("accepted")}}}, true},
		{"accepted, chargeback accepted", codec.Session{Status: "accepted", Operations: []codec.Operation{{Status: "succeeded",
			Refunds: []codec.OperationRefund{{ID: "rf_1", Status: "accepted", IsChargeback: true}}}}}, true},
		{"created, no operations", codec.Session{Status: "created"}, false},
		{"in progress, operation pending", codec.Session{Status: "in_progress", Operations: []codec.Operation{{Status: "pending"}}}, false},
		{"operations final but waiting", codec.Session{Status: "in_progress", NextAction: &confirm, Operations: []codec.Operation{{Status: "canceled"}}}, false},
		// Issue 14, item 3: each of these counted as settled.
		{"accepted, refund in progress", codec.Session{Status: "accepted", Operations: []codec.Operation{{Status: "succeeded", Refunds: refund("in_progress")}}}, false},
		{"accepted, refund of an unknown status", codec.Session{Status: "accepted", Operations: []codec.Operation{{Status: "succeeded", Refunds: refund("processing")}}}, false},
		{"accepted, second operation in progress", codec.Session{Status: "accepted", Operations: []codec.Operation{{Status: "succeeded"}, {Status: "in_progress"}}}, false},
		{"accepted, next action confirm", codec.Session{Status: "accepted", NextAction: &confirm, Operations: []codec.Operation{{Status: "succeeded"}, {Status: "pending"}}}, false},
		{"partial capture, release refund in progress", codec.Session{Status: "in_progress", Operations: []codec.Operation{{Kind: codec.OperationPayment, Status: "succeeded", Refunds: refund("in_progress")}}}, false},
		{"in progress, every operation final", codec.Session{Status: "in_progress", Operations: []codec.Operation{{Status: "canceled"}, {Status: "succeeded"}}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Settled(&tc.s); got != tc.want {
				t.Fatalf("Settled = %v, want %v", got, tc.want)
			}
		})
	}
}
