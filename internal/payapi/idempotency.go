package payapi

import "fmt"

// CallOption adjusts one call.
type CallOption func(*callOptions)

type callOptions struct {
	idempotencyKey string
	hasKey         bool
	traceparent    string
	tracestate     string
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
