package payapi

import (
	"encoding/json"

	"github.com/paysession/paysession/internal/sensitive"
)

// Instrument types and their members.
const (
	InstrumentCard        = "card"
	InstrumentBankAccount = "bank_account"

	CardBank      = "bank_card"
	CardTokenized = "tokenized_card"
	CardEncrypted = "encrypted_card"

	SystemRU  = "ru"
	SystemFPS = "faster_payment_system_verification"
)

// Instrument is payment or payout details: a card or a bank account.
type Instrument struct {
	Type        string // card or bank_account
	Card        *Card
	BankAccount *BankAccount
	// Raw keeps the whole object when Type is neither card nor bank_account.
	Raw json.RawMessage
}

// Card is a card instrument. Last4, Brand, BIN and CountryISO3 are
// output-only: the service fills them in responses and they are never sent.
type Card struct {
	Type          string // bank_card, tokenized_card or encrypted_card
	BankCard      *BankCard
	TokenizedCard *TokenizedCard
	EncryptedCard *EncryptedCard
	Last4         string
	Brand         string
	BIN           string
	CountryISO3   string
}

// BankCard is a card given by its number. Number and SecurityCode print as
// masks; only the wire encoder sees them.
type BankCard struct {
	Number          sensitive.PAN
	ExpirationMonth string // two digits
	ExpirationYear  string // two digits
	SecurityCode    sensitive.SecurityCode
}

// TokenizedCard is a card given by a token (tokenize/elements or a widget).
type TokenizedCard struct {
	Token string
}

// EncryptedCard is a card given by its number hash.
type EncryptedCard struct {
	NumberHash string
}

// BankAccount is a bank-account instrument; SystemType selects the member.
type BankAccount struct {
	SystemType string // ru, faster_payment_system_verification, or other
	RU         *RUAccount
	FPS        *FPSVerification
	// Raw is the member named after SystemType for other system types.
	Raw json.RawMessage
}

// RUAccount is a Russian bank account. Values in webhooks are partly masked.
type RUAccount struct {
	BIC, Account, FullName, Description string
	IsFast                              bool
}

// FPSVerification names a Faster Payment System recipient.
type FPSVerification struct {
	Phone  string // digits
	BankID string // FPS bank identifier
}

// CardInstrument returns a card instrument for a full card number.
func CardInstrument(number sensitive.PAN, month, year string, code sensitive.SecurityCode) *Instrument {
	return &Instrument{Type: InstrumentCard, Card: &Card{Type: CardBank, BankCard: &BankCard{
		Number: number, ExpirationMonth: month, ExpirationYear: year, SecurityCode: code}}}
}

// TokenInstrument returns a tokenized-card instrument.
func TokenInstrument(token string) *Instrument {
	return &Instrument{Type: InstrumentCard, Card: &Card{Type: CardTokenized, TokenizedCard: &TokenizedCard{Token: token}}}
}
