package ingress

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// TestEventIDIsNoFunctionOfACard: a webhook's event id is the SHA-256 of
// its body when the body holds no card data, and otherwise does not depend
// on the card's hidden digits, so hashing candidate card numbers against a
// published id finds nothing (issue 37).
func TestEventIDIsNoFunctionOfACard(t *testing.T) {
	plain := `{"type":"payment_finished","session":{"id":"ps_1","status":"accepted"}}`
	sum := sha256.Sum256([]byte(plain))
	if got := EventID([]byte(plain)); got != hex.EncodeToString(sum[:]) {
		t.Errorf("event id of a body without card data = %s, want its SHA-256", got)
	}
	body := func(pan string) string {
		return strings.Replace(plain, `"status"`, `"metadata":{"note":"card `+pan+`"},"status"`, 1)
	}
	a, b := body("4111 1111 1111 1111"), body("4111 1100 0009 1111") // same bin and last four, both Luhn-valid
	if EventID([]byte(a)) != EventID([]byte(b)) {
		t.Errorf("two bodies that differ only in a card's hidden digits have different event ids: the id depends on them")
	}
	raw := sha256.Sum256([]byte(a))
	if EventID([]byte(a)) == hex.EncodeToString(raw[:]) {
		t.Errorf("the event id of a body with a card number is the SHA-256 of the raw body")
	}
}
