package codec

import "github.com/paysession/paysession/internal/sensitive"

// Instrument is the version-neutral payment instrument of a command
// (payment_method / payout_details / payment_details on the API).
// Type names the member that is set: "card" or "bank_account".
type Instrument struct {
	Type        string       `avro:"type" json:"type"`
	Card        *Card        `avro:"card" json:"card,omitempty"`
	BankAccount *BankAccount `avro:"bank_account" json:"bank_account,omitempty"`
}

// Instrument types.
const (
	InstrumentCard        = "card"
	InstrumentBankAccount = "bank_account"
)

// Card is a card instrument. Type names the member that is set:
// "bank_card", "tokenized_card" or "encrypted_card".
type Card struct {
	Type          string         `avro:"type" json:"type"`
	BankCard      *BankCard      `avro:"bank_card" json:"bank_card,omitempty"`
	TokenizedCard *TokenizedCard `avro:"tokenized_card" json:"tokenized_card,omitempty"`
	EncryptedCard *EncryptedCard `avro:"encrypted_card" json:"encrypted_card,omitempty"`
}

// Card types.
const (
	CardBank      = "bank_card"
	CardTokenized = "tokenized_card"
	CardEncrypted = "encrypted_card"
)

// BankCard is full card data. Number and SecurityCode are sensitive types:
// they print masked and never reach an outcome.
type BankCard struct {
	Number          sensitive.PAN           `avro:"number" json:"number"`
	ExpirationMonth string                  `avro:"expiration_month" json:"expiration_month"`
	ExpirationYear  string                  `avro:"expiration_year" json:"expiration_year"`
	SecurityCode    *sensitive.SecurityCode `avro:"security_code" json:"security_code,omitempty"`
}

// TokenizedCard is a card identified by a token.
type TokenizedCard struct {
	Token string `avro:"token" json:"token"`
}

// EncryptedCard is a card identified by the hash of its number.
type EncryptedCard struct {
	NumberHash string `avro:"number_hash" json:"number_hash"`
}

// BankAccount is a bank account instrument. SystemType names the member
// that is set: "ru" or "faster_payment_system_verification".
type BankAccount struct {
	SystemType string      `avro:"system_type" json:"system_type"`
	RU         *RUAccount  `avro:"ru" json:"ru,omitempty"`
	FPS        *FPSAccount `avro:"fps" json:"fps,omitempty"`
}

// Bank account system types.
const (
	SystemRU  = "ru"
	SystemFPS = "faster_payment_system_verification"
)

// RUAccount is a Russian bank account.
type RUAccount struct {
	BIC         string  `avro:"bic" json:"bic"`
	Account     string  `avro:"account" json:"account"`
	FullName    string  `avro:"full_name" json:"full_name"`
	Description *string `avro:"description" json:"description,omitempty"`
	IsFast      bool    `avro:"is_fast" json:"is_fast"`
}

// FPSAccount is a Faster Payment System recipient.
type FPSAccount struct {
	Phone  string `avro:"phone" json:"phone"`
	BankID string `avro:"bank_id" json:"bank_id"`
}

// Customer is the customer in the partner's system.
type Customer struct {
	Reference string   `avro:"reference" json:"reference"`
	Emails    []string `avro:"emails" json:"emails,omitempty"`
}

// Participants are the sender and recipient of an operation.
type Participants struct {
	Sender    *Sender    `avro:"sender" json:"sender,omitempty"`
	Recipient *Recipient `avro:"recipient" json:"recipient,omitempty"`
}

// Sender is participant_details.sender.
type Sender struct {
	FullName   *string `avro:"full_name" json:"full_name,omitempty"`
	FirstName  *string `avro:"first_name" json:"first_name,omitempty"`
	LastName   *string `avro:"last_name" json:"last_name,omitempty"`
	City       *string `avro:"city" json:"city,omitempty"`
	Street     *string `avro:"street" json:"street,omitempty"`
	IPv4       *string `avro:"ipv4" json:"ipv4,omitempty"`
	PostalCode *string `avro:"postal_code" json:"postal_code,omitempty"`
	Email      *string `avro:"email" json:"email,omitempty"`
}

// Recipient is participant_details.recipient.
type Recipient struct {
	FullName   *string `avro:"full_name" json:"full_name,omitempty"`
	FirstName  *string `avro:"first_name" json:"first_name,omitempty"`
	LastName   *string `avro:"last_name" json:"last_name,omitempty"`
	MiddleName *string `avro:"middle_name" json:"middle_name,omitempty"`
}

// PaymentOptions are extra payment parameters.
type PaymentOptions struct {
	ReturnURL *string `avro:"return_url" json:"return_url,omitempty"`
}
