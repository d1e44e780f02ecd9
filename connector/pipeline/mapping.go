package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// This file maps the Kafka model (codec commands) to the API model (payapi
// requests). Everything here is pure: no I/O beyond the returned closure.

// endpoints names the API method of each command kind (a metrics label).
var endpoints = map[codec.CommandKind]string{
	codec.KindInitPayout: "session/init/payout", codec.KindInitPayment: "session/init/payment",
	codec.KindCreateSession: "session/create", codec.KindStartPayout: "session/start/payout",
	codec.KindStartPayment: "session/start/payment", codec.KindCapture: "session/capture",
	codec.KindRefund: "session/refund", codec.KindConfirm: "session/confirm", codec.KindCancel: "session/cancel",
	codec.KindDisableRecurring: "recurrent/disable", codec.KindFPSVerification: "fps/customer_verification",
	codec.KindStatusRefresh: "session/status", codec.KindBankPayPush: "bankpay/push",
}

// toCommand maps a decoded command to the call that executes it, under the
// project and submerchant the command names.
func toCommand(c codec.Command) (*command, error) {
	cmd := &command{Kind: string(c.Kind()), Endpoint: endpoints[c.Kind()], SessionID: c.SessionRef(),
		answersSession: !answersNoSession[c.Kind()]}
	if c.Kind() == codec.KindDisableRecurring {
		cmd.token = &tokenAnswer{}
	}
	call, err := callFor(c, cmd.token)
	if err != nil {
		return nil, err
	}
	cmd.call, cmd.route, cmd.project = routed(call, c.Route()), routeOptions(c.Route()), c.Route().Project
	return cmd, nil
}

// tokenAnswer keeps the recurring-token state the last disable_recurring
// call of a command returned, for the command's result.
type tokenAnswer struct {
	mu sync.Mutex
	t  *payapi.RecurringToken
}

func (a *tokenAnswer) set(t *payapi.RecurringToken) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.t = t
}

func (a *tokenAnswer) get() *payapi.RecurringToken {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.t
}

// disableRecurring disables a token, keeping the answer's token state.
func disableRecurring(token string, into *tokenAnswer) callFunc {
	return func(ctx context.Context, a API, o ...payapi.CallOption) (*payapi.Session, error) {
		t, err := a.DisableRecurring(ctx, token, o...)
		if err == nil {
			into.set(t)
		}
		return nil, err
	}
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

// routed adds the route's options to every call of a command.
func routed(call callFunc, r codec.Route) callFunc {
	ro := routeOptions(r)
	if len(ro) == 0 {
		return call
	}
	return func(ctx context.Context, a API, o ...payapi.CallOption) (*payapi.Session, error) {
		return call(ctx, a, append(o[:len(o):len(o)], ro...)...)
	}
}

// answersNoSession are the kinds whose API answer never holds a session.
var answersNoSession = map[codec.CommandKind]bool{codec.KindDisableRecurring: true, codec.KindBankPayPush: true}

// callFor returns the API call of a command; a disable_recurring call keeps
// the token state the answer showed in token.
func callFor(c codec.Command, token *tokenAnswer) (callFunc, error) {
	switch c := c.(type) {
	case *codec.InitPayout:
		req := payapi.InitPayoutRequest{Instrument: instrument(&c.Instrument), Amount: amount(&c.Amount, &c.Currency),
			Participants: participants(c.Participants), Customer: customer(c.Customer), Metadata: metadata(c.Metadata)}
		return sessionCall(func(ctx context.Context, a API, o []payapi.CallOption) (*payapi.Session, error) {
			return a.InitPayout(ctx, req, o...)
		}), nil
	case *codec.InitPayment:
		req := payapi.InitPaymentRequest{Instrument: instrument(&c.Instrument), Amount: amount(&c.Amount, &c.Currency),
			Customer: customer(&c.Customer), Participants: participants(c.Participants),
			PaymentOptions: paymentOptions(c.PaymentOptions), Metadata: metadata(c.Metadata)}
		return sessionCall(func(ctx context.Context, a API, o []payapi.CallOption) (*payapi.Session, error) {
			return a.InitPayment(ctx, req, o...)
		}), nil
	case *codec.CreateSession:
		req := payapi.CreateSessionRequest{PayoutInstrument: instrument(c.PayoutInstrument),
			PaymentInstrument: instrument(c.PaymentInstrument), Amount: amount(c.Amount, c.Currency),
			Participants: participants(c.Participants), Customer: customer(c.Customer),
			PaymentOptions: paymentOptions(c.PaymentOptions), Metadata: metadata(c.Metadata)}
		return sessionCall(func(ctx context.Context, a API, o []payapi.CallOption) (*payapi.Session, error) {
			return a.CreateSession(ctx, req, o...)
		}), nil
	case *codec.StartPayout:
		req := payapi.StartPayoutRequest{SessionID: c.SessionID, Instrument: instrument(c.Instrument),
			Amount: amount(c.Amount, c.Currency), Participants: participants(c.Participants),
			Customer: customer(c.Customer), Metadata: metadata(c.Metadata)}
		return sessionCall(func(ctx context.Context, a API, o []payapi.CallOption) (*payapi.Session, error) {
			return a.StartPayout(ctx, req, o...)
		}), nil
	case *codec.StartPayment:
		req := payapi.StartPaymentRequest{SessionID: c.SessionID, Instrument: instrument(c.Instrument),
			Amount: amount(c.Amount, c.Currency), Customer: customer(c.Customer),
			Participants: participants(c.Participants), PaymentOptions: paymentOptions(c.PaymentOptions),
			Metadata: metadata(c.Metadata)}
		return sessionCall(func(ctx context.Context, a API, o []payapi.CallOption) (*payapi.Session, error) {
			return a.StartPayment(ctx, req, o...)
		}), nil
	case *codec.Capture:
		req := payapi.CaptureRequest{SessionID: c.SessionID, Amount: amount(c.Amount, c.Currency)}
		return sessionCall(func(ctx context.Context, a API, o []payapi.CallOption) (*payapi.Session, error) {
			return a.Capture(ctx, req, o...)
		}), nil
	case *codec.Refund:
		req := payapi.RefundRequest{SessionID: c.SessionID, Amount: amount(c.Amount, c.Currency), Metadata: metadata(c.Metadata)}
		return sessionCall(func(ctx context.Context, a API, o []payapi.CallOption) (*payapi.Session, error) {
			return a.Refund(ctx, req, o...)
		}), nil
	case *codec.Confirm:
		id := c.SessionID
		return func(ctx context.Context, a API, o ...payapi.CallOption) (*payapi.Session, error) {
			return a.Confirm(ctx, id, o...)
		}, nil
	case *codec.Cancel:
		id := c.SessionID
		return func(ctx context.Context, a API, o ...payapi.CallOption) (*payapi.Session, error) {
			return a.Cancel(ctx, id, o...)
		}, nil
	case *codec.StatusRefresh:
		// Read-only: sent without the key (the service refuses keys on
		// read-only methods with idempotency_key_not_supported; a replay is
		// harmless), under the command's project.
		id, ro := c.SessionID, routeOptions(c.Route())
		return func(ctx context.Context, a API, _ ...payapi.CallOption) (*payapi.Session, error) {
			return a.Status(ctx, id, ro...)
		}, nil
	case *codec.FPSVerification:
		req := payapi.FPSVerificationRequest{Phone: c.Phone, BankID: c.BankID, Recipient: recipient(&c.Recipient)}
		return sessionCall(func(ctx context.Context, a API, o []payapi.CallOption) (*payapi.Session, error) {
			return a.VerifyFPSCustomer(ctx, req, o...)
		}), nil
	case *codec.DisableRecurring:
		return disableRecurring(c.Token, token), nil
	case *codec.BankPayPush:
		id, phone := c.SessionID, c.Phone
		return func(ctx context.Context, a API, o ...payapi.CallOption) (*payapi.Session, error) {
			return nil, a.BankPayPush(ctx, id, phone, o...)
		}, nil
	}
	return nil, fmt.Errorf("no API call for command type %T", c)
}

func sessionCall(f func(context.Context, API, []payapi.CallOption) (*payapi.Session, error)) callFunc {
	return func(ctx context.Context, a API, o ...payapi.CallOption) (*payapi.Session, error) { return f(ctx, a, o) }
}

func amount(v *int64, cur *string) *payapi.Amount {
	if v == nil {
		return nil
	}
	a := &payapi.Amount{Value: *v}
	if cur != nil {
		a.Currency = *cur
	}
	return a
}

func metadata(m *codec.Metadata) json.RawMessage {
	if m == nil {
		return nil
	}
	return m.Raw()
}

func instrument(in *codec.Instrument) *payapi.Instrument {
	if in == nil {
		return nil
	}
	out := &payapi.Instrument{Type: in.Type}
	if c := in.Card; c != nil {
		out.Card = &payapi.Card{Type: c.Type}
		if b := c.BankCard; b != nil {
			// An empty expiry (a payout card given by number) is left out of the request.
			out.Card.BankCard = &payapi.BankCard{Number: b.Number, ExpirationMonth: b.ExpirationMonth, ExpirationYear: b.ExpirationYear}
			if b.SecurityCode != nil {
				out.Card.BankCard.SecurityCode = *b.SecurityCode
			}
		}
		if t := c.TokenizedCard; t != nil {
			out.Card.TokenizedCard = &payapi.TokenizedCard{Token: t.Token}
		}
		if e := c.EncryptedCard; e != nil {
			out.Card.EncryptedCard = &payapi.EncryptedCard{NumberHash: e.NumberHash}
		}
	}
	if b := in.BankAccount; b != nil {
		out.BankAccount = &payapi.BankAccount{SystemType: b.SystemType}
		if r := b.RU; r != nil {
			out.BankAccount.RU = &payapi.RUAccount{BIC: r.BIC, Account: r.Account, FullName: r.FullName,
				Description: deref(r.Description), IsFast: r.IsFast}
		}
		if f := b.FPS; f != nil {
			out.BankAccount.FPS = &payapi.FPSVerification{Phone: f.Phone, BankID: f.BankID}
		}
	}
	return out
}

func customer(c *codec.Customer) *payapi.Customer {
	if c == nil {
		return nil
	}
	out := &payapi.Customer{Reference: c.Reference}
	for _, e := range c.Emails {
		out.Contacts = append(out.Contacts, payapi.Contact{Email: e})
	}
	return out
}

func participants(p *codec.Participants) *payapi.ParticipantDetails {
	if p == nil {
		return nil
	}
	out := &payapi.ParticipantDetails{}
	if s := p.Sender; s != nil {
		out.Sender = &payapi.Sender{FullName: deref(s.FullName), FirstName: deref(s.FirstName), LastName: deref(s.LastName),
			City: deref(s.City), Street: deref(s.Street), IPv4: deref(s.IPv4), PostalCode: deref(s.PostalCode), Email: deref(s.Email)}
	}
	if r := p.Recipient; r != nil {
		rr := recipient(r)
		out.Recipient = &rr
	}
	return out
}

func recipient(r *codec.Recipient) payapi.Recipient {
	return payapi.Recipient{FullName: deref(r.FullName), FirstName: deref(r.FirstName),
		LastName: deref(r.LastName), MiddleName: deref(r.MiddleName)}
}

func paymentOptions(o *codec.PaymentOptions) *payapi.PaymentOptions {
	if o == nil {
		return nil
	}
	return &payapi.PaymentOptions{ReturnURL: deref(o.ReturnURL)}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
