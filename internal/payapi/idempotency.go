package payapi

import "fmt"

// CallOption adjusts one call.
type CallOption func(*callOptions)

type callOptions struct {
	idempotencyKey string
	hasKey         bool
	traceparent    string
	tracestate     string
	project        string // "" = the client's default project
	submerchant    string // "" = the client's default submerchant
}

// WithProject signs the call with the key of the named partner project and
// sends that project as X-PARTNER-PROJECT. An empty id means the client's
// default project; an id the client has no key for fails the call with
// Code "unknown_project" (Field "project", Rule "unknown") before anything
// is sent. Idempotency keys are the service's per project: the same key
// under two projects is two keys.
func WithProject(id string) CallOption {
	return func(o *callOptions) { o.project = id }
}

// ProjectOf returns the project opts name (WithProject), "" for the
// client's default: what a stand-in for the client (a test's fake of an
// interface the client satisfies) reads to answer per project.
func ProjectOf(opts ...CallOption) string { return collectOptions(opts).project }

// WithSubmerchant sends s as X-PARTNER-SUBMERCHANT (the payer of this
// request) instead of the client's default; an empty s keeps the default.
func WithSubmerchant(s string) CallOption {
	return func(o *callOptions) { o.submerchant = s }
}

// WithIdempotencyKey sends key as X-PARTNER-IDEMPOTENCY-KEY. The key must be
// 4..64 printable ASCII characters (0x21..0x7E); otherwise the call fails
// with Code "invalid_idempotency_key" before anything is sent.
func WithIdempotencyKey(key string) CallOption {
	return func(o *callOptions) {
		o.idempotencyKey = key
		o.hasKey = true
	}
}

// ValidIdempotencyKey reports why key is not a valid idempotency key, or nil.
func ValidIdempotencyKey(key string) error {
	if len(key) < 4 || len(key) > 64 {
		return fmt.Errorf("idempotency key has %d characters, want 4..64", len(key))
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return fmt.Errorf("idempotency key has a non-printable or non-ASCII byte at %d", i)
		}
	}
	return nil
}

func collectOptions(opts []CallOption) callOptions {
	var o callOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// checkHeaderValues refuses a project or submerchant that cannot be an HTTP
// header value (control or non-ASCII bytes) before anything is sent.
func checkHeaderValues(ep endpoint, o *callOptions) *Error {
	for _, v := range []struct{ field, value string }{{"project", o.project}, {"submerchant", o.submerchant}} {
		for i := 0; i < len(v.value); i++ {
			if b := v.value[i]; b < 0x20 || b > 0x7e {
				return &Error{Code: CodeInvalidArgument, Endpoint: ep.path, Field: v.field, Rule: "format",
					Description: v.field + " must be printable ASCII (it is sent as an HTTP header)"}
			}
		}
	}
	return nil
}
