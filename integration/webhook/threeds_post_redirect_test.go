package webhook

import (
	"testing"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/paysim"
)

// TestThreeDSecurePostRedirectReachesOutcomes: a payment command with the
// sandbox's POST 3-D Secure card gets a signed action_required webhook whose
// redirect (method POST, base URL, form parameters PaReq, MD, TermUrl)
// reaches both payments.sessions and payments.webhook-events, decoded; after
// the customer posts the form the payment succeeds.
func TestThreeDSecurePostRedirectReachesOutcomes(t *testing.T) {
	r := startConnector(t)
	key := "threeds-post-" + randomKey()
	r.send(t, codec.KindInitPayment, key, paymentCommand(paysim.Card3DSPost, 4200, ""))
	id := r.accepted(t, key)

	post := func(op codec.Operation) bool {
		return op.Redirect != nil && op.Redirect.Method != nil && *op.Redirect.Method == "POST"
	}
	st := r.state(t, id, "a POST redirect", func(s *codec.SessionState) bool {
		return len(s.Session.Operations) == 1 && post(s.Session.Operations[0])
	})
	ev := r.event(t, id, "action_required with a POST redirect", func(e *codec.WebhookEvent) bool {
		return e.Type == "action_required" && len(e.Session.Operations) == 1 && post(e.Session.Operations[0])
	})
	for what, op := range map[string]codec.Operation{"sessions": opOf(t, &st.Session), "webhook-events": opOf(t, &ev.Session)} {
		red := op.Redirect
		if red.BaseURL == nil || *red.BaseURL != r.Sandbox.URL()+"/sandbox/3ds" {
			t.Errorf("%s: base_url %v", what, deref(red.BaseURL))
		}
		if red.Params["MD"] != op.ID || red.Params["PaReq"] == "" || red.Params["TermUrl"] == "" {
			t.Errorf("%s: form parameters %v", what, red.Params)
		}
		if op.Status != "pending" {
			t.Errorf("%s: operation status %s, want pending", what, op.Status)
		}
	}
	if err := r.Sandbox.Complete3DS(opOf(t, &st.Session).Redirect.Params["MD"], true); err != nil {
		t.Fatal(err)
	}
	r.state(t, id, "succeeded after the form was posted", func(s *codec.SessionState) bool {
		return len(s.Session.Operations) == 1 && s.Session.Operations[0].Status == "succeeded" && s.Session.Operations[0].Redirect == nil
	})
}
