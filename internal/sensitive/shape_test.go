package sensitive

import (
	"strings"
	"testing"
)

func TestFieldPath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"amount_details.amount", "amount_details.amount"},
		{"participant_details.sender.postal_code", "participant_details.sender.postal_code"},
		{"headers.X-PARTNER-SIGN", "headers.X-PARTNER-SIGN"},
		{"card_elements.1.ref", "card_elements.1.ref"},
		{"customer.emails[0]", "customer.emails[0]"},
		{"metadata.*.note", "metadata.*.note"},
		{"metadata.items[2][10]", "metadata.items[2][10]"},
		{"address_line2", "address_line2"},
		{"instrument.number.4111.1111.1111", Unparseable}, // 12 digits in segments
		{"payment.4000/0000/0000/0259", Unparseable},
		{"card 4111 1111 1111 1111 is invalid", Unparseable},
		{"security_code.737", Unparseable}, // an index, but after the name of a security code: it may be one
		{"payments.737.status", "payments.737.status"},
		{"cvv737", Unparseable}, // a glued security code
		{"cvv 737", Unparseable},
		{`"security_code":"737"`, Unparseable},
		{"a..b", Unparseable},
		{".a", Unparseable},
		{"emails[", Unparseable},
		{"emails[x]", Unparseable},
		{"emails[12345]", Unparseable},
		{"1a", Unparseable},
		{"ключ", Unparseable},
		{strings.Repeat("a", 129), Unparseable},
	} {
		if got := FieldPath(tc.in); got != tc.want {
			t.Errorf("FieldPath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestToken(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"blank", "blank"},
		{"non_unique", "non_unique"},
		{"invalid_request", "invalid_request"},
		{"one_time_only", "one_time_only"},
		{"size2", "size2"},
		{"1111", Unparseable},
		{"4000/0000/0000/0259", Unparseable},
		{"x41111111", Unparseable}, // more than 4 digits
		{"cvv737", Unparseable},
		{"too long" + strings.Repeat("x", 60), Unparseable},
		{"has space", Unparseable},
		{"_private", Unparseable}, // starts with a letter
		{strings.Repeat("r", 65), Unparseable},
	} {
		if got := Token(tc.in); got != tc.want {
			t.Errorf("Token(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
