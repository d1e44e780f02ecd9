package payapi

import (
	"context"
)

// The v1/v2 session methods. Each returns the session of the response, or a
// *Error. The payout instrument and operation arrays are named by the
// client's version.
//
// The spec marks session optional in an ok response. A method other than
// Status that gets an ok without one (missing or null) returns a nil
// *Session and a nil error: the service accepted the call, the resulting
// state is unknown, and the caller asks Status for it (for the methods that
// create a session, whose id is then unknown too, only the session's
// webhooks can tell it). Status itself requires the session, its only
// result: an ok without one is a malformed_response.

var (
	epCreate          = endpoint{path: "session/create"}
	epInitPayment     = endpoint{path: "session/init/payment"}
	epInitPayout      = endpoint{path: "session/init/payout"}
	epStartPayment    = endpoint{path: "session/start/payment"}
	epStartPayout     = endpoint{path: "session/start/payout"}
	epConfirm         = endpoint{path: "session/confirm"}
	epCancel          = endpoint{path: "session/cancel"}
	epCapture         = endpoint{path: "session/capture"}
	epRefund          = endpoint{path: "session/refund"}
	epStatus          = endpoint{path: "session/status", needsSession: true}
	epFPSVerification = endpoint{path: "fps/customer_verification"}
)

// CreateSession creates a session without starting an operation. A nil
// session with a nil error means accepted, state and id unknown (see above).
func (c *Client) CreateSession(ctx context.Context, r CreateSessionRequest, opts ...CallOption) (*Session, error) {
	return c.sessionCall(ctx, epCreate, wireCreate(c.version, r), opts)
}

// InitPayment creates a session and starts a card payment. A nil session
// with a nil error means accepted, state and id unknown (see above).
func (c *Client) InitPayment(ctx context.Context, r InitPaymentRequest, opts ...CallOption) (*Session, error) {
	return c.sessionCall(ctx, epInitPayment, wireInitPayment(r), opts)
}

// InitPayout creates a session and starts a payout. A nil session with a
// nil error means accepted, state and id unknown (see above).
func (c *Client) InitPayout(ctx context.Context, r InitPayoutRequest, opts ...CallOption) (*Session, error) {
	return c.sessionCall(ctx, epInitPayout, wireInitPayout(c.version, r), opts)
}

// StartPayment starts a payment in a session made by CreateSession. A nil
// session with a nil error means accepted, state unknown: ask Status.
func (c *Client) StartPayment(ctx context.Context, r StartPaymentRequest, opts ...CallOption) (*Session, error) {
	return c.sessionCall(ctx, epStartPayment, wireStartPayment(r), opts)
}

// StartPayout starts a payout in a session made by CreateSession. A nil
// session with a nil error means accepted, state unknown: ask Status.
func (c *Client) StartPayout(ctx context.Context, r StartPayoutRequest, opts ...CallOption) (*Session, error) {
	return c.sessionCall(ctx, epStartPayout, wireStartPayout(c.version, r), opts)
}

// Confirm accepts an operation after ready_to_confirm. A nil session with a
// nil error means accepted, state unknown: ask Status.
func (c *Client) Confirm(ctx context.Context, sessionID string, opts ...CallOption) (*Session, error) {
	return c.sessionCall(ctx, epConfirm, wireSessionID{SessionID: sessionID}, opts)
}

// Cancel declines an operation after ready_to_confirm or ready_to_capture.
// A nil session with a nil error means accepted, state unknown: ask Status.
func (c *Client) Cancel(ctx context.Context, sessionID string, opts ...CallOption) (*Session, error) {
	return c.sessionCall(ctx, epCancel, wireSessionID{SessionID: sessionID}, opts)
}

// Capture debits a held payment; a nil Amount captures the whole hold. A nil
// session with a nil error means accepted, state unknown: ask Status.
func (c *Client) Capture(ctx context.Context, r CaptureRequest, opts ...CallOption) (*Session, error) {
	return c.sessionCall(ctx, epCapture, wireCapture(r), opts)
}

// Refund refunds a successful payment; a nil Amount refunds all of it. A nil
// session with a nil error means accepted, state unknown: ask Status.
func (c *Client) Refund(ctx context.Context, r RefundRequest, opts ...CallOption) (*Session, error) {
	return c.sessionCall(ctx, epRefund, wireRefund(r), opts)
}

// Status returns the session with all its operations. It never returns a
// nil session without an error: an ok response without a session is a
// retryable malformed_response (a read is safe to repeat).
func (c *Client) Status(ctx context.Context, sessionID string, opts ...CallOption) (*Session, error) {
	return c.sessionCall(ctx, epStatus, wireSessionID{SessionID: sessionID}, opts)
}

// VerifyFPSCustomer checks whether a recipient is registered in the Faster
// Payment System; the answer is a session with one free payout operation. A
// nil session with a nil error means accepted, state and id unknown (see
// above).
func (c *Client) VerifyFPSCustomer(ctx context.Context, r FPSVerificationRequest, opts ...CallOption) (*Session, error) {
	return c.sessionCall(ctx, epFPSVerification, wireFPSVerification(c.version, r), opts)
}

func (c *Client) sessionCall(ctx context.Context, ep endpoint, payload any, opts []CallOption) (*Session, error) {
	env, err := c.call(ctx, ep, payload, opts)
	if err != nil {
		return nil, err
	}
	return c.sessionResult(ctx, ep, env)
}

// sessionResult reads the session of an ok envelope: nil without an error
// when the envelope has none and ep does not need one; dropped secondary
// timestamps are logged at Debug.
func (c *Client) sessionResult(ctx context.Context, ep endpoint, env *envelope) (*Session, error) {
	if absent(env.Session) && !ep.needsSession {
		return nil, nil
	}
	s, dropped, err := decodeSession(c.versionFor(ep), env.Session)
	if err != nil {
		return nil, decodeError(ep, env.httpStatus, err)
	}
	c.logDropped(ctx, ep, dropped)
	return s, nil
}

// decodeError reports an ok response whose result cannot be read: the
// request reached the service, so the outcome is ambiguous.
func decodeError(ep endpoint, status int, err error) *Error {
	m := malformed(ep.path, status, "result cannot be read: %v", err)
	m.Err = err
	return m
}
