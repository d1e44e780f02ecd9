package payapi

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
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
	Description string // scrubbed: never contains card data or keys
	Field, Rule string // from "<field path>.<rule>" of invalid_request
	HTTPStatus  int    // 0 when no response was received
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
		if msg := scrubDigits(e.Err.Error()); !strings.Contains(e.Description, msg) {
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

// splitFieldRule parses "<field path>.<rule>": the rule is the last dot
// segment. Descriptions that are not a dotted path (e.g. sentences) give
// empty Field and Rule.
func splitFieldRule(desc string) (field, rule string) {
	if desc == "" || strings.ContainsAny(desc, " \t\n\r") {
		return "", ""
	}
	i := strings.LastIndexByte(desc, '.')
	if i < 0 {
		return "", desc
	}
	return desc[:i], desc[i+1:]
}

// scrubDigits masks every run of 12 or more digits (allowing single spaces or
// dashes between digits, as card numbers are often written) except its last
// four digits, so an echoed card or account number cannot leak.
func scrubDigits(s string) string {
	var out []byte
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		end, digits := digitRun(s, i)
		if digits >= 12 {
			if out == nil {
				out = []byte(s)
			}
			maskRun(out[i:end], digits-4)
		}
		i = end
	}
	if out == nil {
		return s
	}
	return string(out)
}

// digitRun returns the end of the digit run starting at i and its digit count.
func digitRun(s string, i int) (end, digits int) {
	end = i
	for j := i; j < len(s); j++ {
		c := s[j]
		switch {
		case isDigit(c):
			digits++
			end = j + 1
		case (c == ' ' || c == '-') && j+1 < len(s) && isDigit(s[j+1]) && j > i && isDigit(s[j-1]):
		default:
			return end, digits
		}
	}
	return end, digits
}

func maskRun(b []byte, n int) {
	for k := range b {
		if n == 0 {
			return
		}
		if isDigit(b[k]) {
			b[k] = '*'
			n--
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

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
		Description: scrubDigits(fmt.Sprintf(format, args...)),
		Retryable:   status/100 == 2 || retryableStatus(status), Sent: true}
}
