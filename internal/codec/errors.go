package codec

import (
	"fmt"
	"regexp"
	"strings"
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
)

// longDigits matches 12 or more digits, optionally separated by single
// spaces or dashes: anything that may be a card number.
var longDigits = regexp.MustCompile(`\d(?:[ -]?\d){11,}`)

// scrub replaces anything that looks like a card number with a mask.
func scrub(s string) string {
	if !strings.ContainsAny(s, "0123456789") {
		return s
	}
	return longDigits.ReplaceAllString(s, "[redacted]")
}

// Scrub replaces every run of 12 or more digits (optionally separated by
// spaces or dashes) in s with "[redacted]". Use it on any text that may
// quote a command value before it reaches a log or a topic.
func Scrub(s string) string { return scrub(s) }
