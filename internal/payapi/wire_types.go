package payapi

import (
	"bytes"
	"encoding/json"

	"github.com/paysession/paysession/internal/sensitive"
)

// Leaf JSON shapes that are the same in v1 and v2 and in both directions.
// The version-dependent names live only in wire_request.go and
// wire_response.go.

type wireAmount struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

type wireCustomer struct {
	Reference string        `json:"reference,omitempty"`
	Contacts  []wireContact `json:"contacts,omitempty"`
}

type wireContact struct {
	Email string `json:"email,omitempty"`
}

type wireParticipants struct {
	Recipient *wireRecipient `json:"recipient,omitempty"`
	Sender    *wireSender    `json:"sender,omitempty"`
}

type wireRecipient struct {
	FullName   string `json:"full_name,omitempty"`
	FirstName  string `json:"first_name,omitempty"`
	LastName   string `json:"last_name,omitempty"`
	MiddleName string `json:"middle_name,omitempty"`
}

type wireSender struct {
	FullName   string `json:"full_name,omitempty"`
	FirstName  string `json:"first_name,omitempty"`
	LastName   string `json:"last_name,omitempty"`
	City       string `json:"city,omitempty"`
	Street     string `json:"street,omitempty"`
	IPv4       string `json:"ipv4,omitempty"`
	PostalCode string `json:"postal_code,omitempty"`
	Email      string `json:"email,omitempty"`
}

type wirePaymentOptions struct {
	ReturnURL string `json:"return_url,omitempty"`
}

type wireTransactionInfo struct {
	RRN      string `json:"rrn,omitempty"`
	AuthCode string `json:"auth_code,omitempty"`
}

type wireBankCard struct {
	Number          sensitive.PAN          `json:"number"`
	ExpirationMonth string                 `json:"expiration_month,omitempty"`
	ExpirationYear  string                 `json:"expiration_year,omitempty"`
	SecurityCode    sensitive.SecurityCode `json:"security_code,omitempty"`
}

type wireTokenizedCard struct {
	Token string `json:"token"`
}

type wireEncryptedCard struct {
	NumberHash string `json:"number_hash"`
}

type wireRU struct {
	BIC         string `json:"bic"`
	Account     string `json:"account"`
	FullName    string `json:"full_name,omitempty"`
	Description string `json:"description,omitempty"`
	IsFast      bool   `json:"is_fast"`
}

type wireFPS struct {
	Phone  string `json:"phone"`
	BankID string `json:"bank_id,omitempty"`
}

// wireBankAccount is {"system_type": T, T: member}.
type wireBankAccount struct {
	SystemType string
	Member     any
}

// MarshalJSON writes system_type first, then the member named after it.
func (b wireBankAccount) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	t, err := json.Marshal(b.SystemType)
	if err != nil {
		return nil, err
	}
	buf.WriteString(`{"system_type":`)
	buf.Write(t)
	if b.Member != nil {
		m, err := json.Marshal(b.Member)
		if err != nil {
			return nil, err
		}
		buf.WriteByte(',')
		buf.Write(t)
		buf.WriteByte(':')
		buf.Write(m)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
