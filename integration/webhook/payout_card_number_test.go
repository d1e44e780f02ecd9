package webhook

import (
	"testing"

	"github.com/paysession/paysession/internal/codec"
)

// TestPayoutByCardNumberAlone: a payout to a card given by its number only
// (no expiry: the spec's bank_card "with card number") is accepted by the
// codec, sent without an expiry, and succeeds, its masked card reaching
// payments.sessions.
func TestPayoutByCardNumberAlone(t *testing.T) {
	r := startConnector(t)
	key := "payout-number-" + randomKey()
	r.send(t, codec.KindInitPayout, key, `{"instrument":{"type":"card","card":{"type":"bank_card",`+
		`"bank_card":{"number":"2200000000000004"}}},"amount":7700,"currency":"rub"}`)
	id := r.accepted(t, key)
	st := r.state(t, id, "payout succeeded", func(s *codec.SessionState) bool {
		return len(s.Session.Operations) == 1 && s.Session.Operations[0].Status == "succeeded"
	})
	in := st.Session.Operations[0].Instrument
	if in == nil || deref(in.CardLast4) != "0004" || deref(in.CardBIN) != "220000" || deref(in.CardType) != "bank_card" {
		t.Fatalf("instrument %+v", in)
	}
}
