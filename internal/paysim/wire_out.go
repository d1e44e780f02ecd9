package paysim

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
)

// Wire types of responses and webhooks. The sandbox never imports the API
// client: these names are checked against the client's in the contract suite.

type wireSession struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	CreatedAt  string `json:"created_at"`
	UpdatedAt  string `json:"updated_at"`
	NextAction string `json:"next_action,omitempty"`
	// Payouts: payments (v1) / payout_list (v2); payments: acquiring_payments (v1) / payment_list (v2).
	PayoutsV1  []wireOperation `json:"payments,omitempty"`
	PayoutsV2  []wireOperation `json:"payout_list,omitempty"`
	PaymentsV1 []wireOperation `json:"acquiring_payments,omitempty"`
	PaymentsV2 []wireOperation `json:"payment_list,omitempty"`
}

type wireOperation struct {
	ID                  string           `json:"id"`
	Status              string           `json:"status"`
	CreatedAt           string           `json:"created_at"`
	FinishedAt          string           `json:"finished_at,omitempty"`
	Customer            any              `json:"customer,omitempty"`
	PaymentMethod       *wireInstrument  `json:"payment_method,omitempty"`
	PayoutDetails       *wireInstrument  `json:"payout_details,omitempty"`
	PaymentDetails      *wireInstrument  `json:"payment_details,omitempty"`
	AmountDetails       *wireAmount      `json:"amount_details,omitempty"`
	Amounts             *wireFees        `json:"amounts,omitempty"`
	TransactionInfo     *wireTxn         `json:"transaction_info,omitempty"`
	PaymentOptions      any              `json:"payment_options,omitempty"`
	ParticipantDetails  any              `json:"participant_details,omitempty"`
	CustomerInteraction *wireInteraction `json:"customer_interaction,omitempty"`
	Metadata            json.RawMessage  `json:"metadata,omitempty"`
	Refunds             []wireRefund     `json:"refunds,omitempty"`
	// Recurrent is the recurring token a successful bank-card payment issues
	// (an added member; consumers tolerate added fields).
	Recurrent *wireRecurrent `json:"recurrent,omitempty"`
}

type wireAmount struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

type wireFees struct {
	Fee struct {
		MerchantFee wireAmount `json:"merchant_fee"`
	} `json:"fee"`
}

type wireTxn struct {
	RRN      string `json:"rrn"`
	AuthCode string `json:"auth_code"`
}

type wireInteraction struct {
	Type     string       `json:"type"`
	Redirect wireRedirect `json:"redirect"`
}

type wireRedirect struct {
	URL     string            `json:"url"`
	BaseURL string            `json:"base_url"`
	Method  string            `json:"method"`
	QS      map[string]string `json:"qs"`
	Params  map[string]string `json:"params"`
}

type wireRefund struct {
	ID              string          `json:"id"`
	Status          string          `json:"status"`
	CreatedAt       string          `json:"created_at"`
	FinishedAt      string          `json:"finished_at,omitempty"`
	IsChargeback    bool            `json:"is_chargeback"`
	AmountDetails   wireAmount      `json:"amount_details"`
	TransactionInfo *wireTxn        `json:"transaction_info,omitempty"`
	Metadata        json.RawMessage `json:"metadata,omitempty"`
}

type wireRecurrent struct {
	Token      string `json:"token"`
	CreatedAt  string `json:"created_at"`
	FinishedAt string `json:"finished_at"`
	IsActive   bool   `json:"is_active"`
	Type       string `json:"type"`
}

type wireInstrument struct {
	Type        string        `json:"type"`
	Card        *wireCard     `json:"card,omitempty"`
	BankAccount *wireBankAcct `json:"bank_account,omitempty"`
}

type wireCard struct {
	Type          string         `json:"type"`
	BankCard      *wireBankCard  `json:"bank_card,omitempty"`
	TokenizedCard map[string]any `json:"tokenized_card,omitempty"`
	EncryptedCard map[string]any `json:"encrypted_card,omitempty"`
	Last4         string         `json:"last4,omitempty"`
	Brand         string         `json:"brand,omitempty"`
	BIN           string         `json:"bin,omitempty"`
	CountryISO3   string         `json:"country_iso3,omitempty"`
}

// wireBankCard never carries the full number or the security code.
type wireBankCard struct {
	Number          string `json:"number"` // masked: bin + asterisks + last4
	ExpirationMonth string `json:"expiration_month,omitempty"`
	ExpirationYear  string `json:"expiration_year,omitempty"`
}

type wireBankAcct struct {
	SystemType string         `json:"system_type"`
	RU         *wireRU        `json:"ru,omitempty"`
	FPS        *wireFPS       `json:"faster_payment_system_verification,omitempty"`
	Other      map[string]any `json:"-"`
}

type wireRU struct {
	BIC         string `json:"bic"`
	Account     string `json:"account"`
	FullName    string `json:"full_name"`
	Description string `json:"description,omitempty"`
	IsFast      bool   `json:"is_fast"`
}

type wireFPS struct {
	Phone  string `json:"phone"`
	BankID string `json:"bank_id"`
}

// MarshalJSON writes the system-type member, passing unknown ones through.
func (b *wireBankAcct) MarshalJSON() ([]byte, error) {
	m := map[string]any{"system_type": b.SystemType}
	switch {
	case b.RU != nil:
		m["ru"] = b.RU
	case b.FPS != nil:
		m["faster_payment_system_verification"] = b.FPS
	default:
		for k, v := range b.Other {
			if k != "system_type" {
				m[k] = v
			}
		}
	}
	return json.Marshal(m)
}

// renderSession shapes s for an API version; masked is the webhook form
// (account and name values partly hidden with asterisks).
func renderSession(s *session, version int, masked bool, baseURL string) wireSession {
	w := wireSession{ID: s.ID, Status: s.Status, CreatedAt: formatTime(s.CreatedAt),
		UpdatedAt: formatTime(s.UpdatedAt), NextAction: s.NextAction}
	var payouts, payments []wireOperation
	for _, o := range s.Payouts {
		payouts = append(payouts, renderOperation(o, version, masked, baseURL))
	}
	for _, o := range s.Payments {
		payments = append(payments, renderOperation(o, version, masked, baseURL))
	}
	if version == 2 {
		w.PayoutsV2, w.PaymentsV2 = payouts, payments
	} else {
		w.PayoutsV1, w.PaymentsV1 = payouts, payments
	}
	return w
}

func renderOperation(o *operation, version int, masked bool, baseURL string) wireOperation {
	w := wireOperation{ID: o.ID, Status: o.Status, CreatedAt: formatTime(o.CreatedAt),
		Customer: o.Customer, PaymentOptions: o.Options, Metadata: o.Metadata,
		AmountDetails: &wireAmount{Amount: o.Amount.Value, Currency: o.Amount.Currency}}
	if !o.FinishedAt.IsZero() {
		w.FinishedAt = formatTime(o.FinishedAt)
	}
	inst := renderInstrument(o.Instrument, masked)
	switch {
	case !o.Payout:
		w.PaymentDetails = inst
	case version == 2:
		w.PayoutDetails = inst
	default:
		w.PaymentMethod = inst
	}
	w.ParticipantDetails = o.Participants
	if masked {
		w.ParticipantDetails = maskNames(o.Participants)
	}
	if o.Fee != nil {
		w.Amounts = &wireFees{}
		w.Amounts.Fee.MerchantFee = wireAmount{Amount: o.Fee.Value, Currency: strings.ToUpper(o.Fee.Currency)}
	}
	if o.Txn != nil {
		w.TransactionInfo = &wireTxn{RRN: o.Txn.RRN, AuthCode: o.Txn.AuthCode}
	}
	if o.Interaction {
		w.CustomerInteraction = redirectFor(o, baseURL)
	}
	for _, r := range o.Refunds {
		wr := wireRefund{ID: r.ID, Status: r.Status, CreatedAt: formatTime(r.CreatedAt), IsChargeback: r.Chargeback,
			AmountDetails: wireAmount{Amount: r.Amount.Value, Currency: r.Amount.Currency}, Metadata: r.Metadata}
		if !r.FinishedAt.IsZero() {
			wr.FinishedAt = formatTime(r.FinishedAt)
		}
		if r.Txn != nil {
			wr.TransactionInfo = &wireTxn{RRN: r.Txn.RRN, AuthCode: r.Txn.AuthCode}
		}
		w.Refunds = append(w.Refunds, wr)
	}
	if t := o.Recurrent; t != nil {
		w.Recurrent = renderRecurrent(t)
	}
	return w
}

func renderRecurrent(t *recurrentToken) *wireRecurrent {
	return &wireRecurrent{Token: t.Token, CreatedAt: formatTime(t.CreatedAt), FinishedAt: formatTime(t.FinishedAt),
		IsActive: t.Active, Type: "recurrent_token"}
}

// redirectFor is the sandbox's 3-D Secure page for operation o: a GET with
// the operation in the query, or, for Card3DSPost, a POST of the form
// parameters an issuer's access control server takes (PaReq, MD, TermUrl;
// MD names the operation).
func redirectFor(o *operation, baseURL string) *wireInteraction {
	base := baseURL + "/sandbox/3ds"
	if behaviourOf(o.Instrument.PAN) == behave3DSPost {
		return &wireInteraction{Type: "redirect", Redirect: wireRedirect{
			URL: base, BaseURL: base, Method: "POST", QS: map[string]string{},
			Params: map[string]string{"PaReq": paReq(o.ID), "MD": o.ID, "TermUrl": base},
		}}
	}
	qs := map[string]string{"operation_id": o.ID}
	return &wireInteraction{Type: "redirect", Redirect: wireRedirect{
		URL: base + "?operation_id=" + url.QueryEscape(o.ID), BaseURL: base, Method: "GET",
		QS: qs, Params: map[string]string{},
	}}
}

// paReq is the sandbox's stand-in for an issuer's payer authentication
// request: opaque Base64 that names the operation and no card data.
func paReq(opID string) string {
	return base64.StdEncoding.EncodeToString([]byte("paysim-pareq:" + opID))
}

func renderInstrument(in *instrument, masked bool) *wireInstrument {
	if in == nil {
		return nil
	}
	w := &wireInstrument{Type: in.Type}
	if in.Type == "card" {
		c := &wireCard{Type: in.CardType}
		switch in.CardType {
		case "tokenized_card":
			c.TokenizedCard = map[string]any{"token": in.Token}
		case "encrypted_card":
			c.EncryptedCard = map[string]any{"number_hash": in.NumberHash}
		default:
			c.BankCard = &wireBankCard{Number: maskPAN(in.PAN), ExpirationMonth: in.ExpMonth, ExpirationYear: in.ExpYear}
		}
		if in.PAN != "" {
			info := cardInfo(in.PAN)
			c.Last4, c.Brand, c.BIN, c.CountryISO3 = info.last4, info.brand, info.bin, info.country
		}
		w.Card = c
		return w
	}
	b := &wireBankAcct{SystemType: in.SystemType, Other: in.Raw}
	switch {
	case in.RU != nil:
		ru := *in.RU
		if masked {
			ru.Account, ru.FullName = maskMiddle(ru.Account), maskName(ru.FullName)
		}
		b.RU = &wireRU{BIC: ru.BIC, Account: ru.Account, FullName: ru.FullName, Description: ru.Description, IsFast: ru.IsFast}
	case in.SystemType == systemFPS:
		b.FPS = &wireFPS{Phone: in.FPSPhone, BankID: in.FPSBank}
	}
	w.BankAccount = b
	return w
}

// maskMiddle keeps the first 6 and last 4 characters of long values.
func maskMiddle(s string) string {
	if len(s) <= 10 {
		return strings.Repeat("*", len(s))
	}
	return s[:6] + strings.Repeat("*", len(s)-10) + s[len(s)-4:]
}

// maskName keeps the first letter of each word: "Ivan Petrov" -> "I*** P*****".
func maskName(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		r := []rune(w)
		words[i] = string(r[0]) + strings.Repeat("*", len(r)-1)
	}
	return strings.Join(words, " ")
}

var nameKeys = map[string]bool{"full_name": true, "first_name": true, "last_name": true, "middle_name": true}

// maskNames masks name strings of participant_details (webhooks).
func maskNames(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, val := range m {
		switch x := val.(type) {
		case map[string]any:
			out[k] = maskNames(x)
		case string:
			if nameKeys[k] {
				out[k] = maskName(x)
			} else {
				out[k] = x
			}
		default:
			out[k] = val
		}
	}
	return out
}
