package pipeline

import (
	"context"
	"time"

	"github.com/paysession/paysession/internal/payapi"
)

// API is the part of the payment API client the pipeline calls;
// *payapi.Client implements it.
type API interface {
	CreateSession(ctx context.Context, req payapi.CreateSessionRequest, opts ...payapi.CallOption) (*payapi.Session, error)
	InitPayment(ctx context.Context, req payapi.InitPaymentRequest, opts ...payapi.CallOption) (*payapi.Session, error)
	InitPayout(ctx context.Context, req payapi.InitPayoutRequest, opts ...payapi.CallOption) (*payapi.Session, error)
	StartPayment(ctx context.Context, req payapi.StartPaymentRequest, opts ...payapi.CallOption) (*payapi.Session, error)
	StartPayout(ctx context.Context, req payapi.StartPayoutRequest, opts ...payapi.CallOption) (*payapi.Session, error)
	Confirm(ctx context.Context, sessionID string, opts ...payapi.CallOption) (*payapi.Session, error)
	Cancel(ctx context.Context, sessionID string, opts ...payapi.CallOption) (*payapi.Session, error)
	Capture(ctx context.Context, req payapi.CaptureRequest, opts ...payapi.CallOption) (*payapi.Session, error)
	Refund(ctx context.Context, req payapi.RefundRequest, opts ...payapi.CallOption) (*payapi.Session, error)
	Status(ctx context.Context, sessionID string, opts ...payapi.CallOption) (*payapi.Session, error)
	VerifyFPSCustomer(ctx context.Context, req payapi.FPSVerificationRequest, opts ...payapi.CallOption) (*payapi.Session, error)
	DisableRecurring(ctx context.Context, token string, opts ...payapi.CallOption) (*payapi.RecurringToken, error)
	BankPayPush(ctx context.Context, sessionID, phone string, opts ...payapi.CallOption) error
}

// Clock is the time source of the key-lifetime guard and of retry waits.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
