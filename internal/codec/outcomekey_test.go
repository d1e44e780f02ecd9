package codec

import (
	"strings"
	"testing"
)

func TestOutcomeKey(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"key-0001", "key-0001"},
		// sha256("4111111111111111"), first 12 bytes.
		{"4111111111111111", "sha256:9bbef19476623ca56c17da75"},
		{"k y", "sha256:"},
		{strings.Repeat("k", 65), "sha256:"},
	} {
		got := OutcomeKey(tc.key)
		if !strings.HasPrefix(got, tc.want) || (tc.want == "sha256:" && len(got) != len("sha256:")+24) {
			t.Errorf("OutcomeKey(%.20q) = %q; want %q", tc.key, got, tc.want)
		}
		if got != tc.key && strings.Contains(got, tc.key) {
			t.Errorf("OutcomeKey(%.20q) quotes the invalid key", tc.key)
		}
	}
}
