package webhook

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paysession/paysession/connector/reconcile"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/paysim"
)

// autoPayouts confirms payouts up to twice the sandbox's confirmation
// threshold.
var autoPayouts = reconcile.ConfirmPolicy{Mode: reconcile.ConfirmAuto,
	AutoKinds: []codec.OperationKind{codec.OperationPayout}, AutoMaxAmount: 2 * confirmAbove}

// newMeteredReconciler is newReconciler with the metrics in reg.
func (g *rig) newMeteredReconciler(t *testing.T, policy reconcile.ConfirmPolicy, reg prometheus.Registerer) *reconcile.Reconciler {
	t.Helper()
	r, err := reconcile.New(reconcile.Config{
		Brokers: g.brokers, Group: "reconciler-" + g.sessions, SessionsTopic: g.sessions, UpdatesTopic: g.updates,
		Producer: g.prod, Encoder: encoder(t), API: g.api, Confirm: policy,
		QuietAfter: 5 * time.Minute, MaxBackoff: 10 * time.Minute, Tick: 20 * time.Millisecond,
		Now: g.simNow, Logger: testLogger(t), Registerer: reg,
	})
	if err != nil {
		t.Fatal(err)
	}
	harness.Background(t, "reconciler", r.Run)
	return r
}

// counter reads one labelled value of a counter family from reg.
func counter(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// payoutsBooked returns the payouts of a session the sandbox paid out.
func (g *rig) payoutsBooked(sessionID string) []string {
	var ids []string
	for _, e := range g.sim.Ledger(sessionID) {
		if e.Kind == "payout" {
			ids = append(ids, e.OperationID)
		}
	}
	return ids
}

// TestAutoConfirmsEveryPayoutOfASession: a session's first payout waits
// for session/confirm, the reconciler confirms it; a second payout started
// in the same session waits too and is confirmed as well, under its own
// key. Every confirm the sandbox executed came right after a
// session/status of the session, and the metric counts two confirmations.
// The sandbox's state changes are watched through its ledger, not the API,
// so the only calls naming the session are the reconciler's and the
// starts of the payouts.
func TestAutoConfirmsEveryPayoutOfASession(t *testing.T) {
	g := newRig(t, rigOpts{})
	ctx := context.Background()
	reg := prometheus.NewRegistry()
	r := g.newMeteredReconciler(t, autoPayouts, reg)
	harness.Eventually(t, 30*time.Second, "reconciler ready", func() bool { return r.Ready(ctx) == nil })

	s := g.payout(t, cardOK, confirmAbove+1) // waits for session/confirm
	g.publishResponse(t, s)                  // the pipeline's record of the API response
	g.idle(t)
	harness.Eventually(t, 30*time.Second, "first payout confirmed and paid", func() bool {
		g.idle(t)
		return len(g.payoutsBooked(s.ID)) == 1 && r.OpenSessions() == 0
	})
	g.sim.Advance(time.Minute) // the second payout starts later: its states are newer than the accepted one
	second, err := g.api.StartPayout(ctx, payapi.StartPayoutRequest{SessionID: s.ID, Instrument: card(cardOK),
		Amount: &payapi.Amount{Value: confirmAbove + 2, Currency: "rub"}})
	if err != nil {
		t.Fatalf("start second payout: %v", err)
	}
	g.publishResponse(t, second)
	g.idle(t)
	harness.Eventually(t, 30*time.Second, "second payout confirmed and paid", func() bool {
		g.sim.Advance(time.Second)
		g.idle(t)
		return len(g.payoutsBooked(s.ID)) == 2 && r.OpenSessions() == 0
	})

	execs, _ := g.sim.Executions(s.ID)
	var keys []string
	for i, e := range execs {
		if e.Method != "session/confirm" {
			continue
		}
		keys = append(keys, e.IdempotencyKey)
		if i == 0 || execs[i-1].Method != "session/status" {
			t.Errorf("confirm %d not right after a session/status: %v", len(keys), methods(execs))
		}
	}
	if len(keys) != 2 || keys[0] == keys[1] || keys[0] == "" {
		t.Fatalf("executed confirms under keys %q, want two distinct keys (calls %v)", keys, methods(execs))
	}
	if n := counter(t, reg, "paysession_reconcile_auto_confirms_total", "result", "confirmed"); n != 2 {
		t.Fatalf("auto-confirm metric confirmed=%v, want 2", n)
	}

	var last *codec.SessionState
	var published []string
	for _, rec := range g.readAll(t, g.sessions) {
		if string(rec.Key) != s.ID {
			continue
		}
		last = decodeState(t, rec)
		if last.IdempotencyKey != nil {
			published = append(published, *last.IdempotencyKey)
		}
	}
	// An answer is published only when it is newer than what the topic
	// holds; on the sandbox's still clock a webhook of the same instant
	// can win. Never is one published twice or under a key not sent.
	for i, k := range published {
		if !slices.Contains(keys, k) || slices.Contains(published[:i], k) {
			t.Fatalf("confirm answers published under %q, confirms sent under %q", published, keys)
		}
	}
	if last == nil || !reconcile.Settled(&last.Session) || len(last.Session.Operations) != 2 {
		t.Fatalf("last state of %s: %+v", s.ID, last)
	}
	for _, op := range last.Session.Operations {
		if op.Status != "succeeded" {
			t.Fatalf("payout %s last %s", op.ID, op.Status)
		}
	}
}

func methods(execs []paysim.Execution) []string {
	var out []string
	for _, e := range execs {
		out = append(out, e.Method)
	}
	return out
}

// writes returns the executions that are no session/status read: a
// webhook of a session its replica's writer does not hold is confirmed
// with one (connector/ingress binding.go), which changes nothing.
func writes(execs []paysim.Execution) []paysim.Execution {
	var out []paysim.Execution
	for _, e := range execs {
		if e.Method != "session/status" {
			out = append(out, e)
		}
	}
	return out
}
