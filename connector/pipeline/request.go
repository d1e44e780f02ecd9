package pipeline

import (
	"context"
	"fmt"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// request is one API call of a command as a plain value (one of the types
// below), built once when the command is read (toCommand), as franz-go's
// kmsg requests are: it prints and compares, so a test can say what will be
// sent. call sends it (send), again on each retry, with the command's key
// and trace context; end reads the answer.
type request any

// answer is what the service answered a request, as a value.
type answer struct {
	// Session is the session the answer held; nil when it held none (the
	// spec makes it optional, and some methods never answer one).
	Session *payapi.Session
	// Token is the recurring-token state a recurrent/disable answer showed.
	Token *payapi.RecurringToken
}

// The requests, one type per API method a command kind calls. Those whose
// answer is a session are the client's own request types.
type (
	initPayoutRequest      payapi.InitPayoutRequest
	initPaymentRequest     payapi.InitPaymentRequest
	createSessionRequest   payapi.CreateSessionRequest
	startPayoutRequest     payapi.StartPayoutRequest
	startPaymentRequest    payapi.StartPaymentRequest
	captureRequest         payapi.CaptureRequest
	refundRequest          payapi.RefundRequest
	fpsVerificationRequest payapi.FPSVerificationRequest
	// confirmRequest confirms the session's prepared operation.
	confirmRequest struct{ SessionID string }
	// cancelRequest cancels the session's prepared operation.
	cancelRequest struct{ SessionID string }
	// statusRequest asks for the session's state. It is read-only, so it is
	// sent without the key (the service refuses keys on read-only methods
	// with idempotency_key_not_supported; a replay is harmless) and without
	// the call's other options, under its own Route.
	statusRequest struct {
		SessionID string
		Route     codec.Route
	}
	// disableRecurringRequest disables a recurring-payment token.
	disableRecurringRequest struct{ Token string }
	// bankPayPushRequest asks for a payment-status push of a bank-app payment.
	bankPayPushRequest struct{ SessionID, Phone string }
)

// send sends r with opts and returns what the service answered.
func send(ctx context.Context, a API, r request, o ...payapi.CallOption) (answer, error) {
	switch r := r.(type) {
	case initPayoutRequest:
		return sessionAnswer(a.InitPayout(ctx, payapi.InitPayoutRequest(r), o...))
	case initPaymentRequest:
		return sessionAnswer(a.InitPayment(ctx, payapi.InitPaymentRequest(r), o...))
	case createSessionRequest:
		return sessionAnswer(a.CreateSession(ctx, payapi.CreateSessionRequest(r), o...))
	case startPayoutRequest:
		return sessionAnswer(a.StartPayout(ctx, payapi.StartPayoutRequest(r), o...))
	case startPaymentRequest:
		return sessionAnswer(a.StartPayment(ctx, payapi.StartPaymentRequest(r), o...))
	case captureRequest:
		return sessionAnswer(a.Capture(ctx, payapi.CaptureRequest(r), o...))
	case refundRequest:
		return sessionAnswer(a.Refund(ctx, payapi.RefundRequest(r), o...))
	case fpsVerificationRequest:
		return sessionAnswer(a.VerifyFPSCustomer(ctx, payapi.FPSVerificationRequest(r), o...))
	case confirmRequest:
		return sessionAnswer(a.Confirm(ctx, r.SessionID, o...))
	case cancelRequest:
		return sessionAnswer(a.Cancel(ctx, r.SessionID, o...))
	case statusRequest: // read-only: the route only, no key
		return sessionAnswer(a.Status(ctx, r.SessionID, routeOptions(r.Route)...))
	case disableRecurringRequest:
		t, err := a.DisableRecurring(ctx, r.Token, o...)
		if err != nil {
			return answer{}, err
		}
		return answer{Token: t}, nil
	case bankPayPushRequest:
		return answer{}, a.BankPayPush(ctx, r.SessionID, r.Phone, o...)
	}
	return answer{}, fmt.Errorf("no API method for request %T", r)
}

func sessionAnswer(s *payapi.Session, err error) (answer, error) {
	if err != nil {
		return answer{}, err
	}
	return answer{Session: s}, nil
}

// routeOptions are the call options of a command's project and submerchant
// (none for the configured defaults). A project the client has no key for
// fails the call before anything is sent (payapi.CodeUnknownProject).
func routeOptions(r codec.Route) []payapi.CallOption {
	var o []payapi.CallOption
	if r.Project != "" {
		o = append(o, payapi.WithProject(r.Project))
	}
	if r.Submerchant != "" {
		o = append(o, payapi.WithSubmerchant(r.Submerchant))
	}
	return o
}
