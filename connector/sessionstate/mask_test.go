package sessionstate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/sensitive"
)

// TestFromAPIMasksFreeTextTheServiceSendsBack: card data that the service
// copies back in an operation's customer reference or metadata (any JSON,
// any depth), or puts in a status, reaches no session state — and so no
// sessions, session-updates or webhook-events record — in any form
// (issue 37 item 2).
func TestFromAPIMasksFreeTextTheServiceSendsBack(t *testing.T) {
	meta := `{"note":"card 4000/0000/0000/0002","deep":[{"n":4111111111111111}],"cvv":"321","Security_Code":999,` +
		`"text":"CVV 321 and cvc=123","quoted":"{\"security_code\":\"737\"}","escaped":"\u0034000000000000259","4111111111111111":"as a name"}`
	s := &payapi.Session{ID: "ps_1", Status: "in_progress", NextAction: "cvv 737",
		Payments: []payapi.Operation{{ID: "pm_1", Status: "pending",
			Customer: &payapi.Customer{Reference: "ref 4111.1111.1111.1111 cvv 737"},
			Metadata: json.RawMessage(meta),
			Refunds:  []payapi.Refund{{ID: "rf_1", Status: "card 4000 0000 0000 0259"}},
			Instrument: &payapi.Instrument{Type: "card", Card: &payapi.Card{Type: "bank_card", Brand: "4111111111111111",
				BIN: "411111", Last4: "1111"}},
		}}}
	for _, source := range []string{string(codec.SourceAPIResponse), string(codec.SourceWebhook), string(codec.SourcePoll)} {
		got := FromAPI(s, source, t0, 1)
		b, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if sensitive.ContainsCardData(text) {
			t.Errorf("%s: the state holds card data: %s", source, sensitive.Scrub(text))
		}
		for _, leak := range []string{"4111111111111111", "4111.1111", "4000/0000", "0000000000000259", `"321"`, "CVV 321", "cvc=123", `\"737\"`, "999", "4000 0000"} {
			if strings.Contains(text, leak) {
				t.Errorf("%s: the state holds %q: %s", source, leak, text)
			}
		}
		op := got.Session.Operations[0]
		if op.Metadata == nil || !op.Metadata.Valid() {
			t.Fatalf("%s: metadata %v, want masked JSON", source, op.Metadata)
		}
		if want := "ref 411111******1111 cvv ***"; deref(op.CustomerReference) != want {
			t.Errorf("%s: customer reference %q, want %q", source, deref(op.CustomerReference), want)
		}
		if deref(op.Instrument.CardBIN) != "411111" || deref(op.Instrument.CardLast4) != "1111" {
			t.Errorf("%s: bin and last4 lost: %+v", source, op.Instrument)
		}
	}
}

// TestFromAPIKeepsFreeTextWithoutCardData: masking leaves everything else
// as the service sent it.
func TestFromAPIKeepsFreeTextWithoutCardData(t *testing.T) {
	meta := `{"order":42,"items":[{"sku":"A-1","qty":2}],"cvc_check":"pass"}`
	s := &payapi.Session{ID: "ps_123456789012", Status: "accepted",
		Payouts: []payapi.Operation{{ID: "po_1", Status: "succeeded", Customer: &payapi.Customer{Reference: "cust-000123"},
			Metadata: json.RawMessage(meta), TransactionInfo: &payapi.TransactionInfo{RRN: "123456789012", AuthCode: "A1B2C3"}}}}
	got := FromAPI(s, string(codec.SourcePoll), t0, 2)
	op := got.Session.Operations[0]
	eq(t, "id", got.Session.ID, "ps_123456789012")
	eq(t, "reference", deref(op.CustomerReference), "cust-000123")
	eq(t, "rrn", deref(op.RRN), "123456789012")
	if op.Metadata == nil || string(*op.Metadata) != meta {
		t.Errorf("metadata %v", op.Metadata)
	}
}
