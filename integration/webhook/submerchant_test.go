package webhook

import (
	"testing"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/paysim"
)

// TestSubmerchantPayment: a payment command that names a submerchant goes
// out with X-PARTNER-SUBMERCHANT (the sandbox records it, and applies the
// metadata rule only under that header) and its metadata
// {"merchant": "", "submerchant": "<site URL>"} reaches payments.sessions;
// one whose metadata breaks the rule is invalid and never sent.
func TestSubmerchantPayment(t *testing.T) {
	r := startConnector(t)
	good := "sub-ok-" + randomKey()
	r.send(t, codec.KindInitPayment, good, paymentCommand(paysim.CardSuccess, 2000,
		`,"submerchant":"legal-entity-15","metadata":{"merchant":"","submerchant":"https://shop15.example"}`))
	id := r.accepted(t, good)
	all, _ := r.Sandbox.Executions(id)
	ex := writes(all)
	if len(ex) != 1 || ex[0].Submerchant != "legal-entity-15" || ex[0].Method != "session/init/payment" {
		t.Fatalf("executions %+v, want one init/payment for legal-entity-15", ex)
	}
	st := r.state(t, id, "with its metadata", func(s *codec.SessionState) bool {
		return len(s.Session.Operations) == 1 && s.Session.Operations[0].Metadata != nil
	})
	if got := string(*st.Session.Operations[0].Metadata); got != `{"merchant":"","submerchant":"https://shop15.example"}` {
		t.Errorf("metadata %s", got)
	}

	bad := "sub-bad-" + randomKey()
	r.send(t, codec.KindInitPayment, bad, paymentCommand(paysim.CardSuccess, 2000,
		`,"submerchant":"legal-entity-15","metadata":{"merchant":"acme","submerchant":"https://shop15.example"}`))
	res := r.result(t, bad)
	if res.Status != codec.StatusInvalid || deref(res.ErrorField) != "metadata.merchant" || res.Attempts != 0 {
		t.Errorf("rule broken: %s field %v attempts %d", res.Status, deref(res.ErrorField), res.Attempts)
	}
	if got := r.executionsByKey(bad); len(got) != 0 {
		t.Errorf("an invalid submerchant command was sent: %+v", got)
	}
}
