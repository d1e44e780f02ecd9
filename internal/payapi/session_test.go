package payapi

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestOKWithoutSession: the spec marks session optional in ok responses, so
// an ok without it is an accepted call whose state is unknown (nil session,
// no error), not a malformed response. Only session/status, whose result is
// the session itself, still requires it.
func TestOKWithoutSession(t *testing.T) {
	calls := map[string]func(context.Context, *Client) (*Session, error){
		"create": func(ctx context.Context, c *Client) (*Session, error) {
			return c.CreateSession(ctx, CreateSessionRequest{}, WithIdempotencyKey("key-0001"))
		},
		"init_payment": func(ctx context.Context, c *Client) (*Session, error) {
			return c.InitPayment(ctx, InitPaymentRequest{Amount: testAmount}, WithIdempotencyKey("key-0001"))
		},
		"init_payout": func(ctx context.Context, c *Client) (*Session, error) {
			return c.InitPayout(ctx, InitPayoutRequest{Instrument: TokenInstrument("tok_1"), Amount: testAmount}, WithIdempotencyKey("key-0001"))
		},
		"start_payment": func(ctx context.Context, c *Client) (*Session, error) {
			return c.StartPayment(ctx, StartPaymentRequest{SessionID: "ps_1"}, WithIdempotencyKey("key-0001"))
		},
		"start_payout": func(ctx context.Context, c *Client) (*Session, error) {
			return c.StartPayout(ctx, StartPayoutRequest{SessionID: "ps_1"}, WithIdempotencyKey("key-0001"))
		},
		"confirm": func(ctx context.Context, c *Client) (*Session, error) {
			return c.Confirm(ctx, "ps_1", WithIdempotencyKey("key-0001"))
		},
		"cancel": func(ctx context.Context, c *Client) (*Session, error) {
			return c.Cancel(ctx, "ps_1", WithIdempotencyKey("key-0001"))
		},
		"capture": func(ctx context.Context, c *Client) (*Session, error) {
			return c.Capture(ctx, CaptureRequest{SessionID: "ps_1"}, WithIdempotencyKey("key-0001"))
		},
		"refund": func(ctx context.Context, c *Client) (*Session, error) {
			return c.Refund(ctx, RefundRequest{SessionID: "ps_1"}, WithIdempotencyKey("key-0001"))
		},
		"fps_verification": func(ctx context.Context, c *Client) (*Session, error) {
			return c.VerifyFPSCustomer(ctx, FPSVerificationRequest{Phone: "79990000000"})
		},
	}
	for _, body := range []string{`{"status":"ok"}`, `{"status":"ok","session":null}`, `{"status":"ok","error":null,"session":null}`} {
		for name, call := range calls {
			for _, v := range []int{1, 2} {
				t.Run(fmt.Sprintf("%s/v%d/%s", name, v, body), func(t *testing.T) {
					fake := newFakeService(t, jsonResponse(200, body))
					s, err := call(context.Background(), newTestClient(t, fake.srv.URL, v))
					if s != nil || err != nil {
						t.Errorf("got %+v, %v; want a nil session and no error", s, err)
					}
				})
			}
		}
		t.Run("status/"+body, func(t *testing.T) {
			fake := newFakeService(t, jsonResponse(200, body))
			s, err := newTestClient(t, fake.srv.URL, 2).Status(context.Background(), "ps_1")
			var e *Error
			if s != nil || !errors.As(err, &e) || e.Code != CodeMalformedResponse || !e.Retryable || !e.Sent {
				t.Errorf("got %+v, %v; want a retryable, sent malformed_response", s, err)
			}
		})
	}
}
