package payapi

import (
	"encoding/json"
	"time"
)

// Outbound mapping: version-neutral requests to the JSON of API v1 or v2.
// The only version-dependent request name is the payout instrument:
// payment_method (v1) or payout_details (v2); payoutField sets exactly one.

// wireSessionRequest is the body of every session method that carries data.
type wireSessionRequest struct {
	SessionID          *string             `json:"session_id,omitempty"`
	PaymentMethod      any                 `json:"payment_method,omitempty"` // v1 payout instrument
	PayoutDetails      any                 `json:"payout_details,omitempty"` // v2 payout instrument
	PaymentDetails     any                 `json:"payment_details,omitempty"`
	AmountDetails      *wireAmount         `json:"amount_details,omitempty"`
	ParticipantDetails *wireParticipants   `json:"participant_details,omitempty"`
	Customer           *wireCustomer       `json:"customer,omitempty"`
	PaymentOptions     *wirePaymentOptions `json:"payment_options,omitempty"`
	Metadata           json.RawMessage     `json:"metadata,omitempty"`
}

// setPayout puts the payout instrument under the name of version v.
func (w *wireSessionRequest) setPayout(v int, in *Instrument) {
	if in == nil {
		return
	}
	if v == 2 {
		w.PayoutDetails = toWireInstrument(in)
	} else {
		w.PaymentMethod = toWireInstrument(in)
	}
}

func (w *wireSessionRequest) setPayment(in *Instrument) {
	if in != nil {
		w.PaymentDetails = toWireInstrument(in)
	}
}

func wireCreate(v int, r CreateSessionRequest) *wireSessionRequest {
	w := &wireSessionRequest{AmountDetails: toWireAmount(r.Amount), ParticipantDetails: toWireParticipants(r.Participants),
		Customer: toWireCustomer(r.Customer), PaymentOptions: toWireOptions(r.PaymentOptions), Metadata: r.Metadata}
	w.setPayout(v, r.PayoutInstrument)
	w.setPayment(r.PaymentInstrument)
	return w
}

func wireInitPayment(r InitPaymentRequest) *wireSessionRequest {
	w := &wireSessionRequest{AmountDetails: toWireAmount(r.Amount), ParticipantDetails: toWireParticipants(r.Participants),
		Customer: toWireCustomer(r.Customer), PaymentOptions: toWireOptions(r.PaymentOptions), Metadata: r.Metadata}
	w.setPayment(r.Instrument)
	return w
}

func wireInitPayout(v int, r InitPayoutRequest) *wireSessionRequest {
	w := &wireSessionRequest{AmountDetails: toWireAmount(r.Amount), ParticipantDetails: toWireParticipants(r.Participants),
		Customer: toWireCustomer(r.Customer), Metadata: r.Metadata}
	w.setPayout(v, r.Instrument)
	return w
}

func wireStartPayment(r StartPaymentRequest) *wireSessionRequest {
	w := wireInitPayment(InitPaymentRequest{Instrument: r.Instrument, Amount: r.Amount, Customer: r.Customer,
		Participants: r.Participants, PaymentOptions: r.PaymentOptions, Metadata: r.Metadata})
	w.SessionID = &r.SessionID
	return w
}

func wireStartPayout(v int, r StartPayoutRequest) *wireSessionRequest {
	w := wireInitPayout(v, InitPayoutRequest{Instrument: r.Instrument, Amount: r.Amount,
		Participants: r.Participants, Customer: r.Customer, Metadata: r.Metadata})
	w.SessionID = &r.SessionID
	return w
}

func wireCapture(r CaptureRequest) *wireSessionRequest {
	return &wireSessionRequest{SessionID: &r.SessionID, AmountDetails: toWireAmount(r.Amount)}
}

func wireRefund(r RefundRequest) *wireSessionRequest {
	return &wireSessionRequest{SessionID: &r.SessionID, AmountDetails: toWireAmount(r.Amount), Metadata: r.Metadata}
}

func wireFPSVerification(v int, r FPSVerificationRequest) *wireSessionRequest {
	in := &Instrument{Type: InstrumentBankAccount, BankAccount: &BankAccount{SystemType: SystemFPS,
		FPS: &FPSVerification{Phone: r.Phone, BankID: r.BankID}}}
	rec := r.Recipient
	w := &wireSessionRequest{ParticipantDetails: toWireParticipants(&ParticipantDetails{Recipient: &rec})}
	w.setPayout(v, in)
	return w
}

// wireSessionID is the body of confirm, cancel and status.
type wireSessionID struct {
	SessionID string `json:"session_id"`
}

type wireRecurrentDisable struct {
	Recurrent struct {
		Token string `json:"token"`
	} `json:"recurrent"`
}

type wirePublicTokenRequest struct {
	TokenizeWidget     json.RawMessage `json:"tokenize_widget,omitempty"`
	AcquiringWidget    *wireSessionID  `json:"acquiring_widget,omitempty"`
	FPSNoAccountWidget json.RawMessage `json:"fps_no_account_widget,omitempty"`
}

func wirePublicToken(r PublicTokenRequest) *wirePublicTokenRequest {
	w := &wirePublicTokenRequest{TokenizeWidget: r.TokenizeWidget, FPSNoAccountWidget: r.FPSNoAccountWidget}
	if r.AcquiringWidget != nil {
		w.AcquiringWidget = &wireSessionID{SessionID: r.AcquiringWidget.SessionID}
	}
	return w
}

type wireCardElement struct {
	Ref        string `json:"ref"`
	Type       string `json:"type"`
	CardNumber string `json:"card_number"`
}

type wireTokenizeRequest struct {
	CardElements []wireCardElement `json:"card_elements"`
}

func wireTokenize(els []CardElement) *wireTokenizeRequest {
	w := &wireTokenizeRequest{CardElements: make([]wireCardElement, 0, len(els))}
	for _, e := range els {
		t := e.Type
		if t == "" {
			t = "card_number"
		}
		w.CardElements = append(w.CardElements, wireCardElement{Ref: e.Ref, Type: t, CardNumber: e.CardNumber.Reveal()})
	}
	return w
}

type wireTokenInfoRequest struct {
	Type           string          `json:"type"`
	Card           any             `json:"card,omitempty"`
	PublicToken    json.RawMessage `json:"public_token,omitempty"`
	RecurrentToken json.RawMessage `json:"recurrent_token,omitempty"`
}

func wireTokenInfo(r TokenInfoRequest) *wireTokenInfoRequest {
	w := &wireTokenInfoRequest{Type: r.Type, PublicToken: r.PublicToken, RecurrentToken: r.RecurrentToken}
	if r.Card != nil {
		w.Card = toWireCard(r.Card)
	}
	return w
}

type wireWalletRequest struct {
	RequestDatetime string `json:"request_datetime"`
}

type wireBankPushRequest struct {
	SessionID string `json:"session_id"`
	Phone     string `json:"phone"`
}

// formatTime writes a request timestamp: UTC with microseconds.
func formatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000Z07:00")
}

// toWireInstrument maps an instrument; an unknown type with Raw is sent as is.
func toWireInstrument(in *Instrument) any {
	typ := in.Type
	switch {
	case typ == "" && in.Card != nil:
		typ = InstrumentCard
	case typ == "" && in.BankAccount != nil:
		typ = InstrumentBankAccount
	}
	switch {
	case typ == InstrumentCard && in.Card != nil:
		return &wireInstrumentOut{Type: typ, Card: toWireCard(in.Card)}
	case typ == InstrumentBankAccount && in.BankAccount != nil:
		return &wireInstrumentOut{Type: typ, BankAccount: toWireBankAccount(in.BankAccount)}
	case len(in.Raw) > 0:
		return in.Raw
	}
	return &wireInstrumentOut{Type: typ}
}

type wireInstrumentOut struct {
	Type        string           `json:"type"`
	Card        *wireCardOut     `json:"card,omitempty"`
	BankAccount *wireBankAccount `json:"bank_account,omitempty"`
}

// wireCardOut carries only input members: last4, brand, bin and
// country_iso3 are output-only and never sent.
type wireCardOut struct {
	Type          string             `json:"type"`
	BankCard      *wireBankCard      `json:"bank_card,omitempty"`
	TokenizedCard *wireTokenizedCard `json:"tokenized_card,omitempty"`
	EncryptedCard *wireEncryptedCard `json:"encrypted_card,omitempty"`
}

func toWireCard(c *Card) *wireCardOut {
	w := &wireCardOut{Type: c.Type}
	switch {
	case c.BankCard != nil:
		b := c.BankCard
		w.BankCard = &wireBankCard{Number: b.Number, ExpirationMonth: b.ExpirationMonth,
			ExpirationYear: b.ExpirationYear, SecurityCode: b.SecurityCode}
		if w.Type == "" {
			w.Type = CardBank
		}
	case c.TokenizedCard != nil:
		w.TokenizedCard = &wireTokenizedCard{Token: c.TokenizedCard.Token}
		if w.Type == "" {
			w.Type = CardTokenized
		}
	case c.EncryptedCard != nil:
		w.EncryptedCard = &wireEncryptedCard{NumberHash: c.EncryptedCard.NumberHash}
		if w.Type == "" {
			w.Type = CardEncrypted
		}
	}
	return w
}

func toWireBankAccount(b *BankAccount) *wireBankAccount {
	w := &wireBankAccount{SystemType: b.SystemType}
	switch {
	case b.RU != nil:
		r := b.RU
		w.Member = wireRU{BIC: r.BIC, Account: r.Account, FullName: r.FullName, Description: r.Description, IsFast: r.IsFast}
		if w.SystemType == "" {
			w.SystemType = SystemRU
		}
	case b.FPS != nil:
		w.Member = wireFPS{Phone: b.FPS.Phone, BankID: b.FPS.BankID}
		if w.SystemType == "" {
			w.SystemType = SystemFPS
		}
	case len(b.Raw) > 0:
		w.Member = b.Raw
	}
	return w
}

func toWireAmount(a *Amount) *wireAmount {
	if a == nil {
		return nil
	}
	return &wireAmount{Amount: a.Value, Currency: a.Currency}
}

func toWireCustomer(c *Customer) *wireCustomer {
	if c == nil {
		return nil
	}
	w := &wireCustomer{Reference: c.Reference}
	for _, ct := range c.Contacts {
		w.Contacts = append(w.Contacts, wireContact{Email: ct.Email})
	}
	return w
}

func toWireOptions(o *PaymentOptions) *wirePaymentOptions {
	if o == nil {
		return nil
	}
	return &wirePaymentOptions{ReturnURL: o.ReturnURL}
}

func toWireParticipants(p *ParticipantDetails) *wireParticipants {
	if p == nil {
		return nil
	}
	w := &wireParticipants{}
	if r := p.Recipient; r != nil {
		w.Recipient = &wireRecipient{FullName: r.FullName, FirstName: r.FirstName, LastName: r.LastName, MiddleName: r.MiddleName}
	}
	if s := p.Sender; s != nil {
		w.Sender = &wireSender{FullName: s.FullName, FirstName: s.FirstName, LastName: s.LastName, City: s.City,
			Street: s.Street, IPv4: s.IPv4, PostalCode: s.PostalCode, Email: s.Email}
	}
	return w
}
