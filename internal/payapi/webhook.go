package payapi

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/paysession/paysession/internal/sensitive"
	"github.com/paysession/paysession/internal/signing"
)

// Webhook types of the spec. Other types are kept as received.
const (
	WebhookActionRequired  = "action_required"
	WebhookReadyToConfirm  = "ready_to_confirm"
	WebhookReadyToCapture  = "ready_to_capture"
	WebhookPaymentFinished = "payment_finished"
	WebhookPaymentRefunded = "payment_refunded"
)

// ErrMalformedWebhook wraps every failure to parse a webhook body.
var ErrMalformedWebhook = errors.New("malformed webhook")

// Webhook is a parsed webhook body. Unknown types are kept in Type.
type Webhook struct {
	Type    string
	Session Session
	Raw     json.RawMessage // the body as received
	// Version is the API version detected from the member names (1 or 2),
	// 0 when the session carries no operation array.
	Version int
	// DroppedFields lists, by JSON path inside the session object (for
	// example "acquiring_payments[0].refunds[0].finished_at"), the secondary
	// timestamps that could not be read and were left unset rather than
	// rejecting the webhook. The caller may log them; values are not kept.
	DroppedFields []string
}

// VerifyWebhook checks the X-PARTNER-SIGN header over the raw body with the
// service's key(s) and parses it. A bad signature wraps
// signing.ErrBadSignature; a bad body wraps ErrMalformedWebhook.
func VerifyWebhook(v signing.Verifier, body []byte, signatureHeader string) (*Webhook, error) {
	if v == nil {
		return nil, errors.New("verify webhook: no verifier")
	}
	if err := v.Verify(body, signatureHeader); err != nil {
		return nil, fmt.Errorf("verify webhook: %w", err)
	}
	return ParseWebhook(body)
}

type wireWebhook struct {
	Type    *string         `json:"type"`
	Session json.RawMessage `json:"session"`
}

// ParseWebhook parses {type, session}. The version is detected from the
// member names present; a body mixing v1 and v2 names is rejected. An
// unreadable session or operation time rejects the body; an unreadable
// refund time is left unset and listed in DroppedFields (see timestamp.go).
func ParseWebhook(body []byte) (*Webhook, error) {
	var w wireWebhook
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedWebhook, scrubbedError(err))
	}
	if w.Type == nil || *w.Type == "" {
		return nil, fmt.Errorf("%w: type is missing", ErrMalformedWebhook)
	}
	v, err := detectVersion(w.Session)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedWebhook, err)
	}
	decodeAs := v
	if decodeAs == 0 {
		decodeAs = 1
	}
	s, dropped, err := decodeSession(decodeAs, w.Session)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedWebhook, scrubbedError(err))
	}
	return &Webhook{Type: *w.Type, Session: *s, Raw: append(json.RawMessage(nil), body...), Version: v,
		DroppedFields: dropped}, nil
}

// detectVersion looks at the operation arrays of a session object.
func detectVersion(raw json.RawMessage) (int, error) {
	if absent(raw) {
		return 0, errNoSession
	}
	var w wireSessionIn
	if err := json.Unmarshal(raw, &w); err != nil {
		return 0, fmt.Errorf("session: %w", scrubbedError(err))
	}
	v1 := present(w.Payments) || present(w.AcquiringPayments)
	v2 := present(w.PayoutList) || present(w.PaymentList)
	switch {
	case v1 && v2:
		return 0, ErrMixedVersion
	case v1:
		return 1, nil
	case v2:
		return 2, nil
	}
	return 0, nil
}

// scrubbedError keeps the chain of err but scrubs card data and long digit
// groups from its text (sensitive.Scrub).
type scrubbed struct{ err error }

func (s scrubbed) Error() string { return sensitive.Scrub(s.err.Error()) }
func (s scrubbed) Unwrap() error { return s.err }

func scrubbedError(err error) error { return scrubbed{err} }
