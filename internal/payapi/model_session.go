package payapi

import (
	"encoding/json"
	"time"
)

// Session is a payment session with its operations, the same for v1 and v2.
type Session struct {
	ID         string
	Status     string // created, in_progress, accepted, ... (open set)
	CreatedAt  time.Time
	UpdatedAt  time.Time
	NextAction string      // confirm, capture or empty
	Payouts    []Operation // v1 "payments", v2 "payout_list"
	Payments   []Operation // v1 "acquiring_payments", v2 "payment_list"
}

// Operation is one payment or payout inside a session.
type Operation struct {
	ID         string
	Status     string // pending, in_progress, succeeded, canceled, ... (open set)
	CreatedAt  time.Time
	FinishedAt *time.Time
	Customer   *Customer
	// Instrument is payment_method (v1) / payout_details (v2) for payouts and
	// payment_details for payments.
	Instrument          *Instrument
	Amount              *Amount  // amount_details
	Fees                *Amounts // amounts
	TransactionInfo     *TransactionInfo
	PaymentOptions      *PaymentOptions
	Participants        *ParticipantDetails
	CustomerInteraction *CustomerInteraction
	Metadata            json.RawMessage // any JSON, as sent by the partner
	Refunds             []Refund
	// RecurringToken is the recurring token a successful card payment
	// issued (member "recurrent"), where the service shows it. The spec
	// does not show where a payment's token appears; the sandbox puts it
	// there, and fields may be added to payloads.
	RecurringToken *RecurringToken
}

// Refund is a refund of a payment, possibly made in a chargeback.
type Refund struct {
	ID              string
	Status          string // in_progress, accepted, ... (open set)
	CreatedAt       time.Time
	FinishedAt      *time.Time
	IsChargeback    bool
	Amount          *Amount
	TransactionInfo *TransactionInfo
}

// Amount is an amount in minor currency units (10000 = 100.00).
type Amount struct {
	Value    int64  // wire "amount"
	Currency string // lowercase in amount_details (rub), uppercase in fees (RUB)
}

// Amounts holds the fees charged for an operation (wire "amounts").
type Amounts struct {
	MerchantFee *Amount // amounts.fee.merchant_fee
}

// Customer is the customer in the partner's system.
type Customer struct {
	Reference string
	Contacts  []Contact
}

// Contact is one contact of a customer.
type Contact struct {
	Email string
}

// TransactionInfo carries the acquirer's references of an operation.
type TransactionInfo struct {
	RRN      string
	AuthCode string
}

// PaymentOptions are extra payment parameters.
type PaymentOptions struct {
	ReturnURL string
}

// ParticipantDetails names the sender and the recipient of the money.
type ParticipantDetails struct {
	Recipient *Recipient
	Sender    *Sender
}

// Recipient is the receiving party.
type Recipient struct {
	FullName, FirstName, LastName, MiddleName string
}

// Sender is the paying party; postal code has up to 6 digits.
type Sender struct {
	FullName, FirstName, LastName, City, Street, IPv4, PostalCode, Email string
}

// CustomerInteraction is what the customer must do, e.g. a 3-D Secure redirect.
type CustomerInteraction struct {
	Type     string // redirect
	Redirect *Redirect
}

// Redirect describes where to send the customer. Non-string values of QS and
// Params are kept as their JSON text.
type Redirect struct {
	URL     string
	BaseURL string
	Method  string
	QS      map[string]string
	Params  map[string]string
}
