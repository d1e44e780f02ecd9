package payapi

import (
	"encoding/json"
	"time"

	"github.com/paysession/paysession/internal/sensitive"
)

// CreateSessionRequest is session/create; every member is optional.
type CreateSessionRequest struct {
	PayoutInstrument  *Instrument // payment_method (v1) / payout_details (v2)
	PaymentInstrument *Instrument // payment_details
	Amount            *Amount
	Participants      *ParticipantDetails
	Customer          *Customer
	PaymentOptions    *PaymentOptions
	Metadata          json.RawMessage
}

// InitPaymentRequest is session/init/payment.
type InitPaymentRequest struct {
	Instrument     *Instrument // payment_details
	Amount         *Amount
	Customer       *Customer
	Participants   *ParticipantDetails
	PaymentOptions *PaymentOptions
	Metadata       json.RawMessage
}

// InitPayoutRequest is session/init/payout.
type InitPayoutRequest struct {
	Instrument   *Instrument // payment_method (v1) / payout_details (v2)
	Amount       *Amount
	Participants *ParticipantDetails
	Customer     *Customer
	Metadata     json.RawMessage
}

// StartPaymentRequest is session/start/payment; members other than SessionID
// add to or replace what session/create carried.
type StartPaymentRequest struct {
	SessionID      string
	Instrument     *Instrument
	Amount         *Amount
	Customer       *Customer
	Participants   *ParticipantDetails
	PaymentOptions *PaymentOptions
	Metadata       json.RawMessage
}

// StartPayoutRequest is session/start/payout.
type StartPayoutRequest struct {
	SessionID    string
	Instrument   *Instrument
	Amount       *Amount
	Participants *ParticipantDetails
	Customer     *Customer
	Metadata     json.RawMessage
}

// CaptureRequest is session/capture; a nil Amount captures the whole hold.
type CaptureRequest struct {
	SessionID string
	Amount    *Amount
}

// RefundRequest is session/refund; a nil Amount refunds the whole payment.
type RefundRequest struct {
	SessionID string
	Amount    *Amount
	Metadata  json.RawMessage
}

// FPSVerificationRequest is fps/customer_verification: the instrument is a
// bank account of system type faster_payment_system_verification.
type FPSVerificationRequest struct {
	Phone     string
	BankID    string
	Recipient Recipient // first, last and middle name
}

// FPSBank is one bank of the Faster Payment System.
type FPSBank struct {
	ID, EngName, RuName string
}

// RecurringToken is a recurring-payment token (recurrent/disable).
type RecurringToken struct {
	Token      string
	CreatedAt  time.Time
	FinishedAt *time.Time // expiry; may show year 2000 after disabling
	IsActive   bool
	Type       string // recurrent_token
}

// PublicTokenRequest is the token method; contents of the tokenize and FPS
// widgets are not specified, so they are passed as raw JSON objects.
type PublicTokenRequest struct {
	TokenizeWidget     json.RawMessage
	AcquiringWidget    *AcquiringWidget
	FPSNoAccountWidget json.RawMessage
}

// AcquiringWidget asks for a token for the payment widget of a session.
type AcquiringWidget struct {
	SessionID string
}

// CardElement is one card number to tokenize (tokenize/elements).
type CardElement struct {
	Ref        string // name under which the result comes back
	Type       string // card_number (the default when empty)
	CardNumber sensitive.PAN
}

// CardTokenInfo is the tokenize/elements result for one element.
type CardTokenInfo struct {
	Token            string
	MaskedCardNumber string
	CardNetwork      string
	CardType         string
}

// TokenInfoRequest is token/info. Set Card (an encrypted card) for type card;
// the payloads for public_token and recurrent_token are not specified and are
// passed as raw JSON.
type TokenInfoRequest struct {
	Type           string // card, public_token, recurrent_token
	Card           *Card
	PublicToken    json.RawMessage
	RecurrentToken json.RawMessage
}

// TokenInfo is the token/info result. The card members are filled for type
// card; Raw always holds the whole info object (the token shapes are not
// specified).
type TokenInfo struct {
	NumberHash, Brand, Last4, Type string
	Raw                            json.RawMessage
}

// Wallet is a payout deposit balance.
type Wallet struct {
	ID     string
	Amount *Amount
}
