package ingress

import (
	"strings"
	"testing"
)

// finished is a payment_finished webhook as the service may send it.
const finished = `{"type":"payment_finished","session":{"id":"ps_1","status":"accepted","created_at":"2026-11-23T10:00:00.000000Z",` +
	`"updated_at":"2026-11-23T10:00:05.000000Z","payments":[{"id":"po_1","status":"succeeded","amount_details":{"amount":1000,"currency":"rub"}},` +
	`{"id":"po_2","status":"succeeded","metadata":{"note":"a"}}]}}`

// TestEventIDIsWhatTheEventMeans: the event id follows what a webhook
// means (type, session, operation states, updated_at), not its bytes
// (issue 38 item 4: on the code before, a webhook serialized anew was a
// second event id).
func TestEventIDIsWhatTheEventMeans(t *testing.T) {
	base := EventID([]byte(finished))
	same := map[string]string{
		"members reordered and spaced": `{ "session" : {"updated_at":"2026-11-23T10:00:05Z","status":"accepted","id":"ps_1",` +
			`"created_at":"2026-11-23T10:00:00Z","payments":[{"id":"po_2","status":"succeeded"},` +
			`{"status":"succeeded","id":"po_1","amount_details":{"currency":"rub","amount":1000}}]}, "type" : "payment_finished" }`,
		"a field added":               strings.Replace(finished, `"status":"accepted"`, `"status":"accepted","added":{"x":1}`, 1),
		"updated_at with an offset":   strings.Replace(finished, `"2026-11-23T10:00:05.000000Z"`, `"2026-11-23T13:00:05.000+03:00"`, 1),
		"metadata changed":            strings.Replace(finished, `"note":"a"`, `"note":"b"`, 1),
		"the v2 names of the payouts": strings.Replace(finished, `"payments"`, `"payout_list"`, 1),
	}
	for name, b := range same {
		if got := EventID([]byte(b)); got != base {
			t.Errorf("%s: event id %s, want the original's %s", name, got, base)
		}
	}
	different := map[string]string{
		"another type":         strings.Replace(finished, `"payment_finished"`, `"payment_refunded"`, 1),
		"another session":      strings.Replace(finished, `"ps_1"`, `"ps_2"`, 1),
		"another updated_at":   strings.Replace(finished, `10:00:05.000000Z`, `10:00:06.000000Z`, 1),
		"an operation's state": strings.Replace(finished, `"id":"po_2","status":"succeeded"`, `"id":"po_2","status":"canceled"`, 1),
		"a refund": strings.Replace(finished, `"metadata":{"note":"a"}`,
			`"refunds":[{"id":"rf_1","status":"accepted","is_chargeback":true}]`, 1),
		"next_action": strings.Replace(finished, `"status":"accepted"`, `"status":"accepted","next_action":"confirm"`, 1),
	}
	for name, b := range different {
		if got := EventID([]byte(b)); got == base {
			t.Errorf("%s: same event id as the original", name)
		}
	}
}

// TestEventIDIsNoFunctionOfACard: no value of a webhook that the event id
// hashes lets a card number through, so hashing candidate card numbers
// against a published id finds nothing (issue 37).
func TestEventIDIsNoFunctionOfACard(t *testing.T) {
	withCard := func(pan string) []byte {
		return []byte(strings.NewReplacer(`"id":"po_2"`, `"id":"`+pan+`"`, `"note":"a"`, `"note":"card `+pan+`"`).Replace(finished))
	}
	a, b := withCard("4111111111111111"), withCard("4111110000091111") // same bin and last four, both Luhn-valid
	if EventID(a) != EventID(b) {
		t.Errorf("two webhooks that differ only in a card's hidden digits have different event ids: the id depends on them")
	}
}
