package pipeline

import (
	"encoding/json"
	"fmt"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// This file maps the Kafka model (codec commands) to the API model (payapi
// requests): one row per command kind. Everything here is pure.

// kindRow is what the pipeline knows of a command kind: the API method it
// calls (a metrics label), whether that method's answer holds the session
// (the spec marks it optional: an answer without one is accepted, state
// unknown), and the request it builds from a command.
type kindRow struct {
	endpoint       string
	answersSession bool
	request        func(codec.Command) request
}

// row is the kindRow of the commands of type C.
func row[C codec.Command](endpoint string, answersSession bool, build func(C) request) kindRow {
	return kindRow{endpoint: endpoint, answersSession: answersSession,
		request: func(c codec.Command) request { return build(c.(C)) }}
}

// kindRows holds the row of every command kind.
var kindRows = map[codec.CommandKind]kindRow{
	codec.KindInitPayout: row("session/init/payout", true, func(c *codec.InitPayout) request {
		return initPayoutRequest{Instrument: instrument(&c.Instrument), Amount: amount(&c.Amount, &c.Currency),
			Participants: participants(c.Participants), Customer: customer(c.Customer), Metadata: metadata(c.Metadata)}
	}),
	codec.KindInitPayment: row("session/init/payment", true, func(c *codec.InitPayment) request {
		return initPaymentRequest{Instrument: instrument(&c.Instrument), Amount: amount(&c.Amount, &c.Currency),
			Customer: customer(&c.Customer), Participants: participants(c.Participants),
			PaymentOptions: paymentOptions(c.PaymentOptions), Metadata: metadata(c.Metadata)}
	}),
	codec.KindCreateSession: row("session/create", true, func(c *codec.CreateSession) request {
		return createSessionRequest{PayoutInstrument: instrument(c.PayoutInstrument),
			PaymentInstrument: instrument(c.PaymentInstrument), Amount: amount(c.Amount, c.Currency),
			Participants: participants(c.Participants), Customer: customer(c.Customer),
			PaymentOptions: paymentOptions(c.PaymentOptions), Metadata: metadata(c.Metadata)}
	}),
	codec.KindStartPayout: row("session/start/payout", true, func(c *codec.StartPayout) request {
		return startPayoutRequest{SessionID: c.SessionID, Instrument: instrument(c.Instrument),
			Amount: amount(c.Amount, c.Currency), Participants: participants(c.Participants),
			Customer: customer(c.Customer), Metadata: metadata(c.Metadata)}
	}),
	codec.KindStartPayment: row("session/start/payment", true, func(c *codec.StartPayment) request {
		return startPaymentRequest{SessionID: c.SessionID, Instrument: instrument(c.Instrument),
			Amount: amount(c.Amount, c.Currency), Customer: customer(c.Customer),
			Participants: participants(c.Participants), PaymentOptions: paymentOptions(c.PaymentOptions),
			Metadata: metadata(c.Metadata)}
	}),
	codec.KindCapture: row("session/capture", true, func(c *codec.Capture) request {
		return captureRequest{SessionID: c.SessionID, Amount: amount(c.Amount, c.Currency)}
	}),
	codec.KindRefund: row("session/refund", true, func(c *codec.Refund) request {
		return refundRequest{SessionID: c.SessionID, Amount: amount(c.Amount, c.Currency), Metadata: metadata(c.Metadata)}
	}),
	codec.KindConfirm: row("session/confirm", true, func(c *codec.Confirm) request {
		return confirmRequest{SessionID: c.SessionID}
	}),
	codec.KindCancel: row("session/cancel", true, func(c *codec.Cancel) request {
		return cancelRequest{SessionID: c.SessionID}
	}),
	codec.KindDisableRecurring: row("recurrent/disable", false, func(c *codec.DisableRecurring) request {
		return disableRecurringRequest{Token: c.Token}
	}),
	codec.KindFPSVerification: row("fps/customer_verification", true, func(c *codec.FPSVerification) request {
		return fpsVerificationRequest{Phone: c.Phone, BankID: c.BankID, Recipient: recipient(&c.Recipient)}
	}),
	codec.KindStatusRefresh: row("session/status", true, func(c *codec.StatusRefresh) request {
		return statusRequest{SessionID: c.SessionID, Route: c.Route()}
	}),
	codec.KindBankPayPush: row("bankpay/push", false, func(c *codec.BankPayPush) request {
		return bankPayPushRequest{SessionID: c.SessionID, Phone: c.Phone}
	}),
}

// toCommand maps a decoded command to the request that executes it, under
// the project and submerchant the command names.
func toCommand(c codec.Command) (*command, error) {
	r, ok := kindRows[c.Kind()]
	if !ok {
		return nil, fmt.Errorf("no API call for command kind %s", c.Kind())
	}
	return &command{Kind: string(c.Kind()), Endpoint: r.endpoint, SessionID: c.SessionRef(),
		request: r.request(c), answersSession: r.answersSession,
		route: routeOptions(c.Route()), project: c.Route().Project}, nil
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
