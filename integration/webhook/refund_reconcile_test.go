package webhook

import (
	"context"
	"testing"
	"time"

	"github.com/paysession/paysession/connector/reconcile"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/paysim"
)

// TestRefundsReconciledAfterWebhooksStop: a refund, and the release of
// the rest of a partially captured hold, are in progress when the
// connector's endpoint stops taking webhooks; the sandbox completes them
// and gives up on payment_refunded / payment_finished after its 30 minutes.
// The reconciler keeps polling both sessions (a final session status with
// a refund in progress is not settled) and publishes their completed
// refunds.
func TestRefundsReconciledAfterWebhooksStop(t *testing.T) {
	g := newRig(t, rigOpts{})
	ctx := context.Background()
	r := g.newReconciler(t, reconcile.ConfirmPolicy{})
	harness.Eventually(t, 30*time.Second, "reconciler ready", func() bool { return r.Ready(ctx) == nil })

	tests := []struct {
		name string
		pan  string
		// open starts the refund with the webhooks refused and returns
		// the API response the pipeline publishes.
		open func(t *testing.T, sessionID string) *payapi.Session
	}{
		{"refund of an accepted payment", cardOK, func(t *testing.T, id string) *payapi.Session {
			s, err := g.api.Refund(ctx, payapi.RefundRequest{SessionID: id, Amount: &payapi.Amount{Value: 4000, Currency: "rub"}})
			if err != nil {
				t.Fatalf("refund: %v", err)
			}
			return s
		}},
		{"release refund of a partial capture", cardHold, func(t *testing.T, id string) *payapi.Session {
			s, err := g.api.Capture(ctx, payapi.CaptureRequest{SessionID: id, Amount: &payapi.Amount{Value: 5000, Currency: "rub"}})
			if err != nil {
				t.Fatalf("capture: %v", err)
			}
			return s
		}},
	}
	ids := map[string]string{}
	for _, tc := range tests {
		s := g.payment(t, tc.pan, 9000)
		g.idle(t) // payment_finished or ready_to_capture reaches the sessions topic
		ids[tc.name] = s.ID
	}
	g.sim.Advance(time.Minute)
	if err := g.sim.SetFaults(paysimRefuseAll()); err != nil {
		t.Fatal(err)
	}
	before := len(g.attempts())
	for _, tc := range tests {
		resp := tc.open(t, ids[tc.name])
		if !openRefund(resp) {
			t.Fatalf("%s: the response shows no refund in progress", tc.name)
		}
		g.publishResponse(t, resp) // the pipeline's record of the API response
	}
	g.idle(t)
	harness.Eventually(t, 30*time.Second, "reconciler holds both sessions", func() bool { return r.OpenSessions() == len(tests) })
	g.advance(t, 31*time.Minute, time.Minute) // the sandbox retries, then gives up on the webhooks
	if err := g.sim.SetFaults(paysim.Faults{}); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 30*time.Second, "both refunds reconciled", func() bool {
		g.sim.Advance(time.Minute)
		return r.OpenSessions() == 0
	})
	if n := len(g.attempts()) - before; n != 0 {
		t.Fatalf("%d webhook attempts reached the endpoint while it refused them", n)
	}

	last := map[string]*codec.SessionState{}
	for _, rec := range g.readAll(t, g.sessions) {
		last[string(rec.Key)] = decodeState(t, rec)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := last[ids[tc.name]]
			if st == nil || st.Source != codec.SourcePoll || !reconcile.Settled(&st.Session) || st.Session.Status != "accepted" {
				t.Fatalf("last state %+v", st)
			}
			refunds := 0
			for _, op := range st.Session.Operations {
				for _, rf := range op.Refunds {
					refunds++
					if rf.Status != "accepted" {
						t.Fatalf("refund %s last %s", rf.ID, rf.Status)
					}
				}
			}
			if refunds != 1 {
				t.Fatalf("%d refunds in the last state, want 1", refunds)
			}
		})
	}
}

// openRefund reports whether a session shows a refund in progress.
func openRefund(s *payapi.Session) bool {
	for _, ops := range [][]payapi.Operation{s.Payments, s.Payouts} {
		for _, op := range ops {
			for _, rf := range op.Refunds {
				if rf.Status == "in_progress" {
					return true
				}
			}
		}
	}
	return false
}
