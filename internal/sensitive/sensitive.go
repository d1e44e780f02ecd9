// Package sensitive holds the types of values that must never reach a log,
// an error string, a topic or a test snapshot in full — card numbers and
// security codes — and the one matcher of such data in text and of the
// names it goes by.
//
// PAN and SecurityCode print a mask from String, Format, GoString and
// LogValue; only MarshalJSON (the API wire encoder) and Reveal see the value.
// Finder and MaskText find card numbers (any single separator between digit
// groups, JSON escapes) and security codes (after their name, in any case,
// escaped or not) in free text; ContainsCardData tests text that must hold
// none (a command's free-text fields); Scrub redacts error text from
// outside (an API's error description); FieldPath and Token keep an error's
// field, rule or code from outside only in its shape, else Unparseable.
// Names and IsSecurityCodeName match field and attribute names in any case
// and spelling. The codec (idempotency keys, free-text fields, dead
// letters, error strings), the API client (the service's error text), the
// session states (free text the service sends back) and the logging package
// (every log line) use them, so all mask the same forms. It imports the
// standard library only.
package sensitive

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
)

// PAN is a full card number (primary account number).
type PAN string

// Reveal returns the full number; call it only where the wire needs it.
func (p PAN) Reveal() string { return string(p) }

// BIN returns the first six digits, or "" when the number is shorter than 12.
func (p PAN) BIN() string {
	if len(p) < 12 {
		return ""
	}
	return string(p[:6])
}

// Last4 returns the last four digits, or "" when the number is shorter than 12.
func (p PAN) Last4() string {
	if len(p) < 12 {
		return ""
	}
	return string(p[len(p)-4:])
}

// Masked returns bin + asterisks + last4, the most any output may show.
func (p PAN) Masked() string {
	if p == "" {
		return ""
	}
	if len(p) < 12 {
		return strings.Repeat("*", len(p))
	}
	return p.BIN() + strings.Repeat("*", len(p)-10) + p.Last4()
}

// String implements fmt.Stringer with the mask.
func (p PAN) String() string { return p.Masked() }

// GoString implements fmt.GoStringer with the mask (for %#v).
func (p PAN) GoString() string { return fmt.Sprintf("sensitive.PAN(%q)", p.Masked()) }

// Format prints the mask for every verb, so %s, %v, %q, %x and %d cannot leak.
func (p PAN) Format(f fmt.State, verb rune) { fmt.Fprint(f, p.Masked()) }

// LogValue implements slog.LogValuer with the mask.
func (p PAN) LogValue() slog.Value { return slog.StringValue(p.Masked()) }

// MarshalJSON writes the full number: JSON of this type is for the API wire only.
func (p PAN) MarshalJSON() ([]byte, error) { return json.Marshal(string(p)) }

// Luhn reports whether p is all digits with a valid Luhn check digit.
func (p PAN) Luhn() bool {
	if len(p) < 12 || len(p) > 19 {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
	}
	return luhn([]byte(p))
}

// SecurityCode is a card security code (CVV/CVC). It is never shown at all.
type SecurityCode string

const redacted = "[redacted]"

// Reveal returns the code; call it only where the wire needs it.
func (s SecurityCode) Reveal() string { return string(s) }

// String implements fmt.Stringer with a fixed mask.
func (s SecurityCode) String() string { return redacted }

// GoString implements fmt.GoStringer with a fixed mask.
func (s SecurityCode) GoString() string { return "sensitive.SecurityCode(" + redacted + ")" }

// Format prints the mask for every verb.
func (s SecurityCode) Format(f fmt.State, verb rune) { fmt.Fprint(f, redacted) }

// LogValue implements slog.LogValuer with the mask.
func (s SecurityCode) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON writes the code: JSON of this type is for the API wire only.
func (s SecurityCode) MarshalJSON() ([]byte, error) { return json.Marshal(string(s)) }
