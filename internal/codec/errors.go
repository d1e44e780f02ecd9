package codec

import (
	"fmt"
	"strings"

	"github.com/paysession/paysession/internal/sensitive"
)

// Format is a command value encoding, detected from its first byte.
type Format string

// Command value formats.
const (
	FormatConfluent    Format = "confluent"          // 0x00 + 4-byte schema id + Avro binary
	FormatSingleObject Format = "avro-single-object" // 0xC3 0x01 + CRC-64-AVRO fingerprint + Avro binary
	FormatJSON         Format = "json"               // a JSON object
	FormatUnknown      Format = "unknown"
)

// DecodeError is a command value that cannot be decoded. It is final: the
// record goes to the dead-letter topic. Its message names the field when one
// is known and never contains a card number.
type DecodeError struct {
	Format Format
	Field  string // dotted field path, "" when the error is not about a field
	Reason string
}

func (e *DecodeError) Error() string {
	if e.Field != "" {
		return scrub(fmt.Sprintf("decode %s command: field %s: %s", e.Format, e.Field, e.Reason))
	}
	return scrub(fmt.Sprintf("decode %s command: %s", e.Format, e.Reason))
}

// RegistryError is a failure to reach the schema registry while decoding or
// encoding. Unlike DecodeError it is transient: retry the record later
// instead of dead-lettering it.
type RegistryError struct {
	Op  string // e.g. "fetch schema 42"
	Err error
}

func (e *RegistryError) Error() string {
	return "schema registry: " + e.Op + ": " + scrub(e.Err.Error())
}

// Unwrap returns the cause.
func (e *RegistryError) Unwrap() error { return e.Err }

// ValidationError is one invalid field of a command. Validate joins all the
// problems of a command with errors.Join; errors.As yields the first.
type ValidationError struct {
	Field  string // dotted field path, e.g. instrument.card.bank_card.number
	Rule   string // short rule name: required, positive, format, luhn, ...
	Reason string // human-readable, never contains the value of a card field
}

func (e *ValidationError) Error() string {
	return scrub(fmt.Sprintf("invalid %s: %s (%s)", e.Field, e.Reason, e.Rule))
}

// Validation rules.
const (
	RuleRequired    = "required"
	RulePositive    = "positive"
	RuleFormat      = "format"
	RuleLuhn        = "luhn"
	RuleLength      = "length"
	RuleConsistency = "consistency"
	RuleUnsupported = "unsupported"
	// RuleCardData: the value holds a card number (or a security code)
	// where none may be, such as an idempotency key.
	RuleCardData = "card_data"
)

// scrub replaces anything that looks like card data with "[redacted]"
// (sensitive.Scrub).
func scrub(s string) string { return sensitive.Scrub(s) }

// Scrub replaces card data in s with "[redacted]": every group of 12 or
// more digits, every card number (Luhn-valid 12–19 digits, also grouped by
// any single separator, as "4111.1111.1111.1111" or "4111/1111/1111/1111",
// or JSON-escaped) and every security code after its name ("cvv 737",
// `"Security_Code":"737"`, "cvc=123"). Use it on any text that may quote a
// command value before it reaches a log or a topic. Text without card data
// comes back as is, without allocating. It is sensitive.Scrub, the one
// matcher the API client uses on the service's error text too.
func Scrub(s string) string { return sensitive.Scrub(s) }

// memberSegment returns a member name of a command as a segment of a
// published field path (DecodeError.Field, ValidationError.Field): the name
// when it is one (sensitive.FieldPath: ASCII letters, digits, '_' and '-',
// no card data), else "*". A member name is the producer's text, and a
// field path is published as it is: "4111111111111111" or "cvv 737" as a
// member name must not come back in error_field.
func memberSegment(name string) string {
	if strings.Contains(name, ".") || sensitive.FieldPath(name) != name {
		return "*"
	}
	return name
}
