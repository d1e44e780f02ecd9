package payapi

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paysession/paysession/internal/sensitive"
)

// API error codes (spec "Errors").
const (
	CodeInvalidRequest            = "invalid_request"
	CodeRecordNotFound            = "repository_record_not_found"
	CodeIdempotencyParamsMismatch = "idempotency_key_params_mismatch"
	CodeIdempotencyInProgress     = "idempotency_key_already_exists"
	CodeIdempotencyNotSupported   = "idempotency_key_not_supported"
)

// Client-side error codes: the failure did not come as an API error object.
const (
	CodeTransport             = "transport"               // connection failed or broke
	CodeTimeout               = "timeout"                 // context deadline or http.Client timeout
	CodeHTTPStatus            = "http_status"             // non-2xx without an API error object
	CodeMalformedResponse     = "malformed_response"      // body unreadable, oversized or of the wrong shape
	CodeInvalidIdempotencyKey = "invalid_idempotency_key" // rejected before sending
	CodeInvalidArgument       = "invalid_argument"        // request could not be built (e.g. invalid metadata JSON)
	CodeSigning               = "signing"                 // the signer failed; nothing was sent
	CodeUnknownProject        = "unknown_project"         // WithProject named a project the client has no key for; nothing was sent
)

// Error is every failure of a call. Callers use errors.As and read Retryable
// and Sent rather than matching strings.
type Error struct {
	Code        string // API code or one of the client codes above
	Description string // scrubbed (sensitive.Scrub): never contains card data or keys
	// Field and Rule are parsed from "<field path>.<rule>" of
	// invalid_request (fieldRule): a field path and a short identifier, or
	// sensitive.Unparseable, never free text.
	Field, Rule string
	HTTPStatus  int // 0 when no response was received
	Retryable   bool
	RetryAfter  time.Duration // from Retry-After, when given
	// Sent reports that the request bytes may have reached the service, so
	// the outcome may be unknown (replay with the same idempotency key).
	Sent     bool
	Endpoint string // e.g. "session/capture"
	Err      error  // underlying cause
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("payapi ")
	b.WriteString(e.Endpoint)
	b.WriteString(": ")
	b.WriteString(e.Code)
	if e.HTTPStatus != 0 {
		b.WriteString(" (HTTP " + strconv.Itoa(e.HTTPStatus) + ")")
	}
	if e.Description != "" {
		b.WriteString(": " + e.Description)
	}
	if e.Err != nil {
		if msg := sensitive.Scrub(e.Err.Error()); !strings.Contains(e.Description, msg) {
			b.WriteString(": " + msg)
		}
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// IsRetryable reports whether err is (or wraps) a retryable *Error.
func IsRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable
}

// classifyCode sets Retryable for an API error code; unknown codes fall back
// on the HTTP status (5xx and 429 retryable, everything else final).
func classifyCode(code string, status int) bool {
	switch code {
	case CodeIdempotencyInProgress:
		return true
	case CodeInvalidRequest, CodeRecordNotFound, CodeIdempotencyParamsMismatch, CodeIdempotencyNotSupported:
		return false
	}
	return retryableStatus(status)
}

func retryableStatus(status int) bool {
	return status >= 500 || status == 429
}

// fieldRule parses the "<field path>.<rule>" description of an
// invalid_request error: the rule is the last dot segment, the field what
// precedes it ("unique" alone is a rule). Each is kept only when it has its
// shape — a field path (sensitive.FieldPath) and a short identifier
// (sensitive.Token), holding no card data — and is otherwise
// sensitive.Unparseable; a description that is not a dotted path at all (a
// sentence, a request the service or a proxy echoed) gives Unparseable for
// both. They are parsed, never scrubbed: they reach the results topic as
// values a consumer may act on.
func fieldRule(desc string) (field, rule string) {
	switch {
	case desc == "":
		return "", ""
	case strings.ContainsAny(desc, " \t\n\r"):
		return sensitive.Unparseable, sensitive.Unparseable
	}
	i := strings.LastIndexByte(desc, '.')
	if i < 0 {
		return "", sensitive.Token(desc)
	}
	field, rule = sensitive.FieldPath(desc[:i]), sensitive.Token(desc[i+1:])
	if field == "" || rule == "" { // ".blank", "amount."
		return sensitive.Unparseable, sensitive.Unparseable
	}
	return field, rule
}

// publicText is text from outside (an API error description, a decoder's
// error) as an Error may carry it: scrubbed by the one matcher
// (sensitive.Scrub), then cut to at most max bytes on a UTF-8 boundary, and
// scrubbed again, since a cut can leave a digit group that reads
// differently.
func publicText(s string, max int) string {
	s = sensitive.Scrub(s)
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return sensitive.Scrub(s[:cut])
}

// retryAfter parses Retry-After as delay-seconds or an HTTP-date relative to now.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// malformed reports a response that arrived but cannot be read. The request
// was sent; after a 2xx the operation may have happened, so the outcome is
// ambiguous and the call is retryable (replay with the same key).
func malformed(endpoint string, status int, format string, args ...any) *Error {
	return &Error{Code: CodeMalformedResponse, Endpoint: endpoint, HTTPStatus: status,
		Description: sensitive.Scrub(fmt.Sprintf(format, args...)),
		Retryable:   status/100 == 2 || retryableStatus(status), Sent: true}
}
