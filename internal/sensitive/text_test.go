package sensitive

import (
	"strings"
	"testing"
)

func TestMaskText(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "4111111111111111", "411111******1111"},
		{"spaces", "4111 1111 1111 1111", "411111******1111"},
		{"dots", "a 4111.1111.1111.1111 b", "a 411111******1111 b"},
		{"slashes", "4111/1111/1111/1111", "411111******1111"},
		{"underscores", "4111_1111_1111_1111", "411111******1111"},
		{"no-break spaces", "4111\u00a01111\u00a01111\u00a01111", "411111******1111"},
		{"escaped digit", `"\u0034111111111111111"`, `"411111******1111"`},
		{"escaped slashes", `4111\/1111\/1111\/1111`, "411111******1111"},
		{"two separators are not one", "4111..1111..1111..1111", "4111..1111..1111..1111"},
		{"a letter breaks the run", "4111a1111b1111c1111", "4111a1111b1111c1111"},
		{"card after a short group keeps it", "2-4111-1111-1111-1111", "2-411111******1111"},
		{"overlapping cards are masked whole", "2024 4111 1111 1111 1111 end", "******************** end"},
		{"two cards", "4111111111111111,5555555555554444", "411111******1111,555555******4444"},
		{"long group holding a card", "x41111111111111119999", "x********************"},
		{"mixed separators", "4111-1111.1111 1111", "4111-1111.1111 1111"},
		{"short groups", "41-11-11-11-11-11-11-11", "41-11-11-11-11-11-11-11"},
		{"date and time", "2026-11-24 04:50:43.123456789 +0000 UTC", "2026-11-24 04:50:43.123456789 +0000 UTC"},
		{"date key", "2026-11-24-000123", "2026-11-24-000123"},
		{"not luhn", "4111 1111 1111 1112", "4111 1111 1111 1112"},
		{"eleven digits", "79000000000", "79000000000"},
		{"cvv", "cvv 737", "cvv ***"},
		{"CVC2 json", `{"CVC2":"737"}`, `{"CVC2":"***"}`},
		{"escaped json member", `{\"security_code\":\"737\"}`, `{\"security_code\":\"***\"}`},
		{"escape before name", `a\ncvv: 737`, `a\ncvv: ***`},
		{"chain of names", "CVV/CVC: 1234", "CVV/CVC: ***"},
		{"filler word", "cvv code is 737", "cvv code is ***"},
		{"glued 4 digits after cvv2", "cvv21234", "cvv2***"},
		{"gap too long", "cvv:              737", "cvv:              737"},
		{"card wins over a code", "cvv 4111 1111 1111 1111", "cvv 411111******1111"},
		{"no name", "status 503 retry 737", "status 503 retry 737"},
		{"cvc equals", "CVC=123", "CVC=***"},
		{"upper json member", `{"SECURITY_CODE":"737"}`, `{"SECURITY_CODE":"***"}`},
		{"escaped code", `{"cvv":"\u0037\u0033\u0037"}`, `{"cvv":"***"}`},
		{"escaped name and code", `\u0063vv \\u0037\\u0033\\u0037!`, `\u0063vv ***!`},
		{"escaped quotes around a code", `\u0022cvc\u0022:\u0022123\u0022`, `\u0022cvc\u0022:\u0022***\u0022`},
		{"escaped non-digits", `\u0041\u0042 737`, `\u0041\u0042 737`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := MaskText(tc.in); got != tc.want {
				t.Errorf("MaskText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestContainsCardData(t *testing.T) {
	for in, want := range map[string]bool{
		"4111111111111111":             true,
		"ref 4111.1111.1111.1111":      true,
		"4000/0000/0000/0002":          true,
		`\u0034111111111111111`:        true,
		"cvv 321":                      true,
		"CVV: 321":                     true,
		"cvc=123":                      true,
		`{"security_code":"999"}`:      true,
		`{"Security-Code":"999"}`:      true,
		`{"cvv":"\u0039\u0039\u0039"}`: true,
		"cvv737":                       true,
		"customer-000123":              false,
		"4111111111111112":             false,
		"cvv check passed":             false,
		"order 123456789012":           false, // 12 digits, not Luhn-valid
		"":                             false,
	} {
		if got := ContainsCardData(in); got != want {
			t.Errorf("ContainsCardData(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestScrub(t *testing.T) {
	for in, want := range map[string]string{
		`{"security_code":"737","number":"4111.1111.1111.1111"}`: `{"security_code":"[redacted]","number":"[redacted]"}`,
		"rule 4000/0000/0000/0259":                               "rule [redacted]",
		"account 40817810099910004312":                           "account [redacted]",
		"cvc=123 CVV 321":                                        "cvc=[redacted] CVV [redacted]",
		`\u0034111111111111111`:                                  "[redacted]",
		"status 503 after 1.234s at 2026-11-24 04:50:43":         "status 503 after 1.234s at 2026-11-24 04:50:43",
	} {
		if got := Scrub(in); got != want {
			t.Errorf("Scrub(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFinderLongDigits(t *testing.T) {
	f := Finder{LongDigits: true}
	redact := func(Match) string { return "[x]" }
	for in, want := range map[string]string{
		"id 123456789012 end":       "id [x] end", // not Luhn, but 12 digits
		"4111.1111.1111.1111":       "[x]",        // a card
		"2026-11-24 04:50:43.12345": "2026-11-24 04:50:43.12345",
		"cvv 737":                   "cvv [x]",
	} {
		if got := f.Replace(in, redact); got != want {
			t.Errorf("Replace(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestContainsCard(t *testing.T) {
	for in, want := range map[string]bool{
		"4111111111111111":          true,
		"order-4111.1111.1111.1111": true,
		`\u0034111111111111111`:     true,
		"4111111111111112":          false,
		"key-4111":                  false,
		"cvv 737":                   false,
	} {
		if got := ContainsCard(in); got != want {
			t.Errorf("ContainsCard(%q) = %v", in, got)
		}
	}
}

func TestNames(t *testing.T) {
	n := NewNames("security_code", "token", "api_key")
	for name, want := range map[string]bool{
		"security_code":      true,
		"Security_Code":      true,
		"SECURITY-CODE":      true,
		"securityCode":       true,
		"SecurityCode":       true,
		"SECURITYCODE":       true,
		"securitycode":       true,
		"card_security_code": true,
		"recurring_token":    true,
		"APIKey":             true,
		"x-api-key":          true,
		"tokenized":          false,
		"security":           false,
		"code":               false,
		"idempotency_key":    false,
	} {
		if got := n.Match(name); got != want {
			t.Errorf("Match(%q) = %v", name, got)
		}
	}
	for name, want := range map[string]bool{"cvv": true, "CVV2": true, "Cvc": true, "card_cvv": true,
		"cardCvv": true, "Security_Code": true, "cvc_check": true, "recvv": false, "number": false} {
		if got := IsSecurityCodeName(name); got != want {
			t.Errorf("IsSecurityCodeName(%q) = %v", name, got)
		}
	}
}

func TestMaskTextFastPathsDoNotAllocate(t *testing.T) {
	for _, s := range []string{"no digits at all", "offset 12 partition 3", "ps_1234567890123456 at 2026-11-24", strings.Repeat("cvv check ", 10)} {
		if n := testing.AllocsPerRun(50, func() { _ = MaskText(s) }); n != 0 {
			t.Errorf("MaskText(%q) allocates %v times", s, n)
		}
	}
}

func BenchmarkMaskText(b *testing.B) {
	for _, bc := range []struct{ name, s string }{
		{"no digits", "committed batch of commands to the results topic"},
		{"digits", "partition 3 offset 1234567 lag 12 at 2026-11-24T04:50:43.123Z session ps_1234567890123456"},
		{"card", "charging 4111 1111 1111 1111 cvv 737"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = MaskText(bc.s)
			}
		})
	}
}

// A mask keeps a card's first six and last four digits; next to other digit
// groups those can read as another card number, which MaskText masks too
// (found by FuzzProtectValue).
func TestMaskTextMasksCardsItsOwnMaskFormed(t *testing.T) {
	in := "000/0001/0010/011/1110/1111/1111"
	once := Finder{}.Replace(in, Match.Mask)
	if !ContainsCard(once) {
		t.Fatalf("one pass of %q gives %q, which holds no card: the case this test is for is gone", in, once)
	}
	if out := MaskText(in); ContainsCard(out) {
		t.Fatalf("MaskText(%q) = %q, which still holds a card number", in, out)
	}
}

// A backslash is read both as the start of a JSON escape and as itself: in
// an error that quotes a decoded member name, "\u378282246310005" holds the
// card number 378282246310005 after the 'u', while the escaped reading
// sees one letter (U+3782) and eleven digits (found by fuzzing the JSON
// decoder's errors).
func TestBackslashIsReadBothWays(t *testing.T) {
	in := `field \u378282246310005: member name is not valid UTF-8`
	if !ContainsCard(in) {
		t.Errorf("ContainsCard(%q) = false", in)
	}
	if out := MaskText(in); strings.Contains(out, "378282246310005") || strings.Contains(out, "82246310005") {
		t.Errorf("MaskText(%q) = %q, which still shows the card number", in, out)
	}
	long := `\u000000000000`
	if out := (Finder{LongDigits: true}).Replace(long, func(Match) string { return "[x]" }); strings.Contains(out, "000000000000") {
		t.Errorf("Replace(%q) = %q, which still holds 12 digits", long, out)
	}
}
