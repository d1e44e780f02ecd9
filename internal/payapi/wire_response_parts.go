package payapi

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Inbound mapping of the version-independent parts: instruments, fees,
// customer interaction, and the results of the v1-only methods.

type wireInstrumentIn struct {
	Type        string          `json:"type"`
	Card        *wireCardIn     `json:"card"`
	BankAccount json.RawMessage `json:"bank_account"`
}

type wireCardIn struct {
	Type          string             `json:"type"`
	BankCard      *wireBankCard      `json:"bank_card"`
	TokenizedCard *wireTokenizedCard `json:"tokenized_card"`
	EncryptedCard *wireEncryptedCard `json:"encrypted_card"`
	Last4         string             `json:"last4"`
	Brand         string             `json:"brand"`
	BIN           string             `json:"bin"`
	CountryISO3   string             `json:"country_iso3"`
}

func decodeInstrument(raw json.RawMessage) (*Instrument, error) {
	if absent(raw) {
		return nil, nil
	}
	var w wireInstrumentIn
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("instrument: %w", err)
	}
	in := &Instrument{Type: w.Type}
	switch {
	case w.Type == InstrumentCard && w.Card != nil:
		in.Card = w.Card.model()
	case w.Type == InstrumentBankAccount && !absent(w.BankAccount):
		ba, err := decodeBankAccount(w.BankAccount)
		if err != nil {
			return nil, err
		}
		in.BankAccount = ba
	default:
		in.Raw = append(json.RawMessage(nil), raw...)
	}
	return in, nil
}

func (w *wireCardIn) model() *Card {
	c := &Card{Type: w.Type, Last4: w.Last4, Brand: w.Brand, BIN: w.BIN, CountryISO3: w.CountryISO3}
	if b := w.BankCard; b != nil {
		c.BankCard = &BankCard{Number: b.Number, ExpirationMonth: b.ExpirationMonth,
			ExpirationYear: b.ExpirationYear, SecurityCode: b.SecurityCode}
	}
	if t := w.TokenizedCard; t != nil {
		c.TokenizedCard = &TokenizedCard{Token: t.Token}
	}
	if e := w.EncryptedCard; e != nil {
		c.EncryptedCard = &EncryptedCard{NumberHash: e.NumberHash}
	}
	return c
}

func decodeBankAccount(raw json.RawMessage) (*BankAccount, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("bank_account: %w", err)
	}
	var st string
	if err := json.Unmarshal(m["system_type"], &st); err != nil && m["system_type"] != nil {
		return nil, fmt.Errorf("bank_account.system_type: %w", err)
	}
	ba := &BankAccount{SystemType: st}
	member := m[st]
	if absent(member) {
		return ba, nil
	}
	switch st {
	case SystemRU:
		var r wireRU
		if err := json.Unmarshal(member, &r); err != nil {
			return nil, fmt.Errorf("bank_account.ru: %w", err)
		}
		ba.RU = &RUAccount{BIC: r.BIC, Account: r.Account, FullName: r.FullName, Description: r.Description, IsFast: r.IsFast}
	case SystemFPS:
		var f wireFPS
		if err := json.Unmarshal(member, &f); err != nil {
			return nil, fmt.Errorf("bank_account.%s: %w", SystemFPS, err)
		}
		ba.FPS = &FPSVerification{Phone: f.Phone, BankID: f.BankID}
	default:
		ba.Raw = append(json.RawMessage(nil), member...)
	}
	return ba, nil
}

type wireAmounts struct {
	Fee *struct {
		MerchantFee *wireAmount `json:"merchant_fee"`
	} `json:"fee"`
}

func (w *wireAmounts) model() *Amounts {
	if w == nil {
		return nil
	}
	a := &Amounts{}
	if w.Fee != nil {
		a.MerchantFee = fromWireAmount(w.Fee.MerchantFee)
	}
	return a
}

type wireInteraction struct {
	Type     string `json:"type"`
	Redirect *struct {
		URL     string                     `json:"url"`
		BaseURL string                     `json:"base_url"`
		Method  string                     `json:"method"`
		QS      map[string]json.RawMessage `json:"qs"`
		Params  map[string]json.RawMessage `json:"params"`
	} `json:"redirect"`
}

func (w *wireInteraction) model() *CustomerInteraction {
	if w == nil {
		return nil
	}
	ci := &CustomerInteraction{Type: w.Type}
	if r := w.Redirect; r != nil {
		ci.Redirect = &Redirect{URL: r.URL, BaseURL: r.BaseURL, Method: r.Method, QS: stringMap(r.QS), Params: stringMap(r.Params)}
	}
	return ci
}

// stringMap keeps string values unquoted and other values as JSON text.
func stringMap(m map[string]json.RawMessage) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		var s string
		if json.Unmarshal(v, &s) == nil {
			out[k] = s
		} else {
			out[k] = string(v)
		}
	}
	return out
}

func fromWireAmount(w *wireAmount) *Amount {
	if w == nil {
		return nil
	}
	return &Amount{Value: w.Amount, Currency: w.Currency}
}

func fromWireCustomer(w *wireCustomer) *Customer {
	if w == nil {
		return nil
	}
	c := &Customer{Reference: w.Reference}
	for _, ct := range w.Contacts {
		c.Contacts = append(c.Contacts, Contact{Email: ct.Email})
	}
	return c
}

func fromWireTxInfo(w *wireTransactionInfo) *TransactionInfo {
	if w == nil {
		return nil
	}
	return &TransactionInfo{RRN: w.RRN, AuthCode: w.AuthCode}
}

func fromWireOptions(w *wirePaymentOptions) *PaymentOptions {
	if w == nil {
		return nil
	}
	return &PaymentOptions{ReturnURL: w.ReturnURL}
}

func fromWireParticipants(w *wireParticipants) *ParticipantDetails {
	if w == nil {
		return nil
	}
	p := &ParticipantDetails{}
	if r := w.Recipient; r != nil {
		p.Recipient = &Recipient{FullName: r.FullName, FirstName: r.FirstName, LastName: r.LastName, MiddleName: r.MiddleName}
	}
	if s := w.Sender; s != nil {
		p.Sender = &Sender{FullName: s.FullName, FirstName: s.FirstName, LastName: s.LastName, City: s.City,
			Street: s.Street, IPv4: s.IPv4, PostalCode: s.PostalCode, Email: s.Email}
	}
	return p
}

var errMissingResult = errors.New("ok envelope without its result member")
