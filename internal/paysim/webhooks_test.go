package paysim

import (
	"net/http"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/signing"
)

// TestWebhookRetrySchedule covers Events delivery rules 2-3 on the fake
// clock: intervals grow, none over 15 minutes, none after 30 minutes, and a
// 200 stops resending.
func TestWebhookRetrySchedule(t *testing.T) {
	e := newEnv(t, nil)
	e.hooks.status = http.StatusInternalServerError
	e.call("v1", "session/init/payout", payoutBody("v1", CardSuccess, 100), "")
	e.idle()
	for range 2 * 60 * 2 { // 60 minutes in 15-second steps
		e.srv.Advance(15 * time.Second)
		e.idle()
	}
	d := e.srv.Webhooks()
	if len(d) != 1 || d[0].State != "failed" {
		t.Fatalf("deliveries: %+v", d)
	}
	at := d[0].Attempts
	t.Logf("attempts: %d", len(at))
	if len(at) < 4 {
		t.Fatalf("only %d attempts", len(at))
	}
	prev := time.Duration(0)
	for i := 1; i < len(at); i++ {
		gap := at[i].At.Sub(at[i-1].At)
		if gap <= prev || gap > WebhookMaxInterval {
			t.Fatalf("attempt %d: gap %v after %v (attempts %+v)", i, gap, prev, at)
		}
		prev = gap
	}
	if last := at[len(at)-1].At.Sub(at[0].At); last != WebhookGiveUp {
		t.Fatalf("attempt %v after the first", last)
	}
	if got := len(e.hooks.types()); got != len(at) {
		t.Fatalf("receiver saw %d posts, log has %d", got, len(at))
	}

	t.Run("200 stops", func(t *testing.T) {
		e := newEnv(t, nil)
		e.hooks.status = http.StatusServiceUnavailable
		e.call("v1", "session/init/payout", payoutBody("v1", CardSuccess, 100), "")
		e.idle()
		e.hooks.mu.Lock()
		e.hooks.status = http.StatusOK
		e.hooks.mu.Unlock()
		for range 8 * 60 {
			e.srv.Advance(15 * time.Second)
			e.idle()
		}
		d := e.srv.Webhooks()[0]
		if d.State != "delivered" || len(d.Attempts) != 2 {
			t.Fatalf("got %s after %d attempts", d.State, len(d.Attempts))
		}
	})
	t.Run("refusal knob", func(t *testing.T) {
		e := newEnv(t, nil)
		e.srv.SetFaults(Faults{WebhookRefuse: 1})
		e.call("v1", "session/init/payout", payoutBody("v1", CardSuccess, 100), "")
		e.idle()
		if len(e.hooks.types()) != 0 || e.srv.Webhooks()[0].Attempts[0].Error == "" {
			t.Fatal("refused attempt reached the receiver")
		}
	})
}

// TestWebhookSignature: Authentication rule 4, webhooks signed with the
// service key over the body; payload has type and session.
func TestWebhookSignature(t *testing.T) {
	e := newEnv(t, nil)
	e.call("v2", "session/init/payout", payoutBody("v2", CardSuccess, 100), "")
	e.idle()
	_, sk := testKeys(t)
	if err := signing.NewRSAVerifier(signing.PKCS1v15, &sk.PublicKey).Verify(e.hooks.bodies[0], e.hooks.sigs[0]); err != nil {
		t.Fatalf("webhook signature: %v", err)
	}
	got := e.hooks.got[0]
	sess := got["session"].(map[string]any)
	if got["type"] != EventPaymentFinished || sess["payout_list"] == nil || sess["status"] != "accepted" {
		t.Fatalf("webhook: %v", got)
	}
}
