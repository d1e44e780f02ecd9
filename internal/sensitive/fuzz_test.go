package sensitive

import (
	"strings"
	"testing"
)

// FuzzMaskText checks the matcher on arbitrary text: it never panics, text
// it finds nothing in comes back unchanged, what it returns holds no card
// number that ContainsCard sees (grouped, escaped or not), and (for text without escapes,
// where a digit is a byte) what it returns holds no run of digits that reads
// as a card number, nor any run of 12 or more digits once LongDigits
// replaces them.
func FuzzMaskText(f *testing.F) {
	for _, s := range []string{
		"4111 1111 1111 1111", "4111.1111.1111.1111", "2024 4111 1111 1111 1111", "x41111111111111119999",
		`{"number":"\u0034111111111111111","cvv":"737"}`, "cvv 737", "security code 1234", "CVV/CVC: 123",
		"2026-11-24 04:50:43.123456789 +0000 UTC", "ps_1234567890123456", "4111\u00a01111\u00a01111\u00a01111",
		`4111\/1111\/1111\/1111`, "1 2 3 4 5 6 7 8 9 0 1 2 3 4", "\\u", "\\u00", "cvv\\",
		"000/0001/0010/011/1110/1111/1111",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := MaskText(s)
		if _, found := (Finder{}).Next(s, 0); !found && out != s {
			t.Fatalf("nothing found but the text changed")
		}
		if ContainsCard(out) {
			t.Fatalf("masked text still holds a card number")
		}
		scrubbed := Finder{LongDigits: true}.Replace(s, func(Match) string { return "[x]" })
		if strings.Contains(s, `\`) {
			return // a digit may be an escape: the runs below are not the matcher's
		}
		for _, r := range digitRuns(out) {
			if len(r) >= minCardDigits && len(r) <= maxCardDigits && luhn([]byte(r)) ||
				len(r) > maxCardDigits && hasCardWindow([]byte(r)) {
				t.Fatalf("masked text still holds a card-like run of %d digits", len(r))
			}
		}
		for _, r := range digitRuns(scrubbed) {
			if len(r) >= minCardDigits {
				t.Fatalf("scrubbed text still holds a run of %d digits", len(r))
			}
		}
	})
}

// digitRuns returns the maximal runs of ASCII digits in s.
func digitRuns(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		if s[i] < '0' || s[i] > '9' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}
