package leakscan

import (
	"slices"
	"strings"
	"testing"
)

func TestScan(t *testing.T) {
	s := Scanner{SecurityCodes: []string{"737"}}
	tests := []struct {
		name string
		in   string
		want []string // Finding.String of each finding
	}{
		{"json card number", `{"number":"4111111111111111"}`, []string{"card_number 411111******1111 at byte 11"}},
		{"masked card number", `{"card":"411111******1111","last4":"1111"}`, nil},
		{"grouped with spaces", `pan 4111 1111 1111 1111 end`, []string{"card_number 411111******1111 at byte 4"}},
		{"grouped with dashes", `5555-5555-5555-4444`, []string{"card_number 555555******4444 at byte 0"}},
		{"not luhn", `4111111111111112`, nil},
		{"too short", `41111111111`, nil},
		{"too long", `41111111111111111111111`, nil},
		{"inside a token", `id=ps_4000000000000002x`, []string{"card_number 400000******0002 at byte 6"}},
		{"binary neighbours", "\x20\xff4000000000003220\x80", []string{"card_number 400000******3220 at byte 2"}},
		{"security code json", `{"security_code":"737"}`, []string{"security_code [security code] at byte 18"}},
		{"security code avro string", "\x06737\x02", []string{"security_code [security code] at byte 1"}},
		{"security code in logfmt", `cvv=737 next`, []string{"security_code [security code] at byte 4"}},
		{"timestamp millis", `time=2026-11-23T10:40:37.737Z`, nil},
		{"duration", `elapsed=1.737ms took=737µs`, nil},
		{"longer number", `amount=17370`, nil},
		{"nothing", ``, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range s.Scan([]byte(tc.in)) {
				got = append(got, f.String())
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("Scan = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFindingNeverPrintsTheValue(t *testing.T) {
	for _, f := range (Scanner{SecurityCodes: []string{"737"}}).Scan([]byte(`4111111111111111 737`)) {
		if strings.Contains(f.String(), "4111111111111111") || strings.Contains(f.String(), "737") {
			t.Errorf("finding prints its value: %s", f)
		}
		if !f.Is("4111111111111111") && !f.Is("737") {
			t.Errorf("Is does not match the value found: %s", f)
		}
	}
}

func TestLuhn(t *testing.T) {
	for _, card := range []string{"4111111111111111", "5555555555554444", "4000000000000002", "4000000000003220", "4000000000000259"} {
		if !Luhn(card) {
			t.Errorf("Luhn(%s) = false", mask(card))
		}
	}
	if Luhn("4111111111111112") || Luhn("") {
		t.Error("Luhn accepts an invalid number")
	}
}

// TestScanLooseForms checks that the scan finds card data in every form the
// connector must mask: card numbers grouped by any single non-alphanumeric
// separator (ASCII or not), JSON-escaped digits and separators, a card
// behind another digit group, and security codes after any spelling of
// their name in free text or JSON (with no codes configured) — and still
// ignores dates, times, addresses and masked numbers.
func TestScanLooseForms(t *testing.T) {
	const card, code = "4111111111111111", "737"
	tests := []struct {
		name string
		in   string
		want []string // values found (Finding.Is), in any order
	}{
		{"dots", `4111.1111.1111.1111`, []string{card}},
		{"slashes", `x 4111/1111/1111/1111 y`, []string{card}},
		{"underscores", `4111_1111_1111_1111`, []string{card}},
		{"colons", `4111:1111:1111:1111`, []string{card}},
		{"no-break spaces", "4111\u00a01111\u00a01111\u00a01111", []string{card}},
		{"amex grouping", `3782-822463-10005`, []string{"378282246310005"}},
		{"json-escaped digits", `{"number":"\u0034111111111111111"}`, []string{card}},
		{"json-escaped all digits", `"\u0034\u0031\u0031\u0031\u0031\u0031\u0031\u0031\u0031\u0031\u0031\u0031\u0031\u0031\u0031\u0031"`, []string{card}},
		{"json-escaped slashes", `4111\/1111\/1111\/1111`, []string{card}},
		{"behind another group", `18 4111 1111 1111 1111`, []string{card}},
		{"avro length byte before", "\x0218\x204111111111111111", []string{card}},
		{"code after cvv", `cvv 737`, []string{code}},
		{"code after cvc colon", `cvc: 737 ok`, []string{code}},
		{"code after security code", `security code 737`, []string{code}},
		{"code in Security_Code member", `{"Security_Code":"737"}`, []string{code}},
		{"code in escaped member", `{\"CVV2\":\"737\"}`, []string{code}},
		{"code escaped", `{"cvv":"\u0037\u0033\u0037"}`, []string{code}},
		{"masked card", `411111******1111 cvv ***`, nil},
		{"date and time", `2026-11-24T04:50:43.737Z 10.0.0.12:9092`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			found := Scan([]byte(tc.in)) // no configured codes: names find them
			for _, w := range tc.want {
				if !slices.ContainsFunc(found, func(f Finding) bool { return f.Is(w) }) {
					t.Errorf("value of %d digits not found in %q (found %v)", len(w), tc.in, found)
				}
			}
			if tc.want == nil && len(found) > 0 {
				t.Errorf("found %v in %q, want nothing", found, tc.in)
			}
		})
	}
}
