package codec

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// TestOutcomeKeyAt: a valid key is its own outcome key; an invalid one is
// replaced by the record's position, which is no function of the key: a key
// that is a card number cannot be found from it by trying candidates
// (issue 37 item 3).
func TestOutcomeKeyAt(t *testing.T) {
	at := Position{Topic: "payments.commands.init_payout", Partition: 3, Offset: 1207}
	for _, tc := range []struct{ key, want string }{
		{"key-0001", "key-0001"},
		{"4111111111111111", "invalid-payments.commands.init_payout-3-1207"},
		{"4111.1111.1111.1111", "invalid-payments.commands.init_payout-3-1207"},
		{"k y", "invalid-payments.commands.init_payout-3-1207"},
		{strings.Repeat("k", 65), "invalid-payments.commands.init_payout-3-1207"},
	} {
		if got := OutcomeKeyAt(tc.key, at); got != tc.want {
			t.Errorf("OutcomeKeyAt(%.20q) = %q; want %q", tc.key, got, tc.want)
		}
	}
	if a, b := OutcomeKeyAt("abc", at), OutcomeKeyAt("abc", Position{Topic: at.Topic, Partition: 3, Offset: 1208}); a == b {
		t.Errorf("two records share the outcome key %q", a)
	}
}

// TestOutcomeKeyIsNoFunctionOfACard: neither outcome key of a card-number
// key holds the card's digits or any prefix of a SHA-256 of any form of it.
func TestOutcomeKeyIsNoFunctionOfACard(t *testing.T) {
	const pan = "4111111111111111"
	at := Position{Topic: "t", Partition: 0, Offset: 7}
	for _, key := range []string{pan, "4111 1111 1111 1111", "4111.1111.1111.1111", `\u0034111111111111111`} {
		for _, got := range []string{OutcomeKeyAt(key, at)} {
			if strings.Contains(got, "411111") || strings.Contains(got, "1111") {
				t.Errorf("outcome key %q of %.6q… holds card digits", got, key)
			}
			for _, form := range []string{pan, key} {
				sum := sha256.Sum256([]byte(form))
				h := hex.EncodeToString(sum[:])
				for i := 0; i+8 <= len(got); i++ {
					if strings.Contains(h, got[i:i+8]) {
						t.Errorf("outcome key %q holds part of a SHA-256 of the card", got)
					}
				}
			}
		}
	}
}
