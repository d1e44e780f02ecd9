package payapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/paysession/paysession/internal/sensitive"
)

// Inbound mapping: JSON of API v1 or v2 to the version-neutral model.
// The version-dependent names are the operation arrays (payments/payout_list,
// acquiring_payments/payment_list) and the payout instrument
// (payment_method/payout_details). A body that carries a name of the other
// version is rejected (ErrMixedVersion) instead of being half read.

// ErrMixedVersion is the cause (Error.Err) of a malformed_response whose body
// carries member names of the other API version.
var ErrMixedVersion = errors.New("response mixes v1 and v2 member names")

// versionNames are the member names of one API version.
type versionNames struct {
	payouts, payments string
}

func namesOf(v int) versionNames {
	if v == 2 {
		return versionNames{payouts: "payout_list", payments: "payment_list"}
	}
	return versionNames{payouts: "payments", payments: "acquiring_payments"}
}

// envelope is {"status": ok|error, "error": {...}, <result member>}.
type envelope struct {
	Status      string          `json:"status"`
	Error       *wireError      `json:"error"`
	Session     json.RawMessage `json:"session"`
	Banks       json.RawMessage `json:"banks"`
	Recurrent   json.RawMessage `json:"recurrent"`
	PublicToken json.RawMessage `json:"public_token"`
	Data        json.RawMessage `json:"data"`
	Info        json.RawMessage `json:"info"`
	Wallets     json.RawMessage `json:"wallets"`

	httpStatus int
}

type wireError struct {
	Code        string `json:"code"`
	Description string `json:"description"`
}

const maxDescription = 512

// parseEnvelope turns a complete response into an ok envelope or a *Error.
// An API error object decides the class by its code (whatever the HTTP
// status); without one, the HTTP status decides.
func parseEnvelope(ep string, status int, h http.Header, body []byte, now time.Time) (*envelope, error) {
	var env envelope
	jsonErr := json.Unmarshal(body, &env)
	if jsonErr == nil && env.Status == "error" && env.Error != nil && env.Error.Code != "" {
		return nil, apiError(ep, status, h, env.Error, now)
	}
	if status/100 != 2 {
		e := &Error{Code: CodeHTTPStatus, Endpoint: ep, HTTPStatus: status, Sent: true,
			Retryable: retryableStatus(status), Description: http.StatusText(status)}
		if e.Retryable {
			e.RetryAfter = retryAfter(h.Get("Retry-After"), now)
		}
		return nil, e
	}
	if jsonErr != nil {
		m := malformed(ep, status, "response is not a JSON envelope")
		m.Err = jsonErr
		return nil, m
	}
	if env.Status != "ok" {
		return nil, malformed(ep, status, "envelope status %.32q is not ok", env.Status)
	}
	env.httpStatus = status
	return &env, nil
}

func apiError(ep string, status int, h http.Header, we *wireError, now time.Time) *Error {
	// The code and description are the service's text, which may echo the
	// request: the code is kept only as a token, the description scrubbed,
	// the field and rule parsed from the raw description (fieldRule).
	e := &Error{Code: sensitive.Token(we.Code), Description: publicText(we.Description, maxDescription),
		HTTPStatus: status, Endpoint: ep, Sent: true, Retryable: classifyCode(we.Code, status)}
	if we.Code == CodeInvalidRequest {
		e.Field, e.Rule = fieldRule(we.Description)
	}
	if e.Retryable {
		e.RetryAfter = retryAfter(h.Get("Retry-After"), now)
	}
	return e
}

// present reports a member that appeared in the JSON (even as null).
func present(raw json.RawMessage) bool { return raw != nil }

// absent reports a member that is missing or null.
func absent(raw json.RawMessage) bool {
	return len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

type wireSessionIn struct {
	ID                string          `json:"id"`
	Status            string          `json:"status"`
	CreatedAt         string          `json:"created_at"`
	UpdatedAt         string          `json:"updated_at"`
	NextAction        string          `json:"next_action"`
	Payments          json.RawMessage `json:"payments"`
	PayoutList        json.RawMessage `json:"payout_list"`
	AcquiringPayments json.RawMessage `json:"acquiring_payments"`
	PaymentList       json.RawMessage `json:"payment_list"`
}

// arrays returns the payout and payment arrays of version v, failing when
// the other version's arrays are present.
func (w *wireSessionIn) arrays(v int) (payouts, payments json.RawMessage, err error) {
	if v == 2 {
		if present(w.Payments) || present(w.AcquiringPayments) {
			return nil, nil, ErrMixedVersion
		}
		return w.PayoutList, w.PaymentList, nil
	}
	if present(w.PayoutList) || present(w.PaymentList) {
		return nil, nil, ErrMixedVersion
	}
	return w.Payments, w.AcquiringPayments, nil
}

// errNoSession is the cause of a malformed response or webhook that needs a
// session and has none.
var errNoSession = errors.New("session is missing")

// decodeSession reads a session object of version v. dropped lists, by path
// inside the session object, the secondary timestamps left unset because
// they could not be read (see timestamp.go).
func decodeSession(v int, raw json.RawMessage) (s *Session, dropped droppedTimes, err error) {
	if absent(raw) {
		return nil, nil, errNoSession
	}
	var w wireSessionIn
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, nil, fmt.Errorf("session: %w", err)
	}
	s = &Session{ID: w.ID, Status: w.Status, NextAction: w.NextAction}
	if s.CreatedAt, err = parseTime(w.CreatedAt); err != nil {
		return nil, nil, fmt.Errorf("session created_at: %w", err)
	}
	if s.UpdatedAt, err = parseTime(w.UpdatedAt); err != nil {
		return nil, nil, fmt.Errorf("session updated_at: %w", err)
	}
	payouts, payments, err := w.arrays(v)
	if err != nil {
		return nil, nil, err
	}
	n := namesOf(v)
	if s.Payouts, err = decodeOperations(v, payouts, true, n.payouts, &dropped); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", n.payouts, err)
	}
	if s.Payments, err = decodeOperations(v, payments, false, n.payments, &dropped); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", n.payments, err)
	}
	return s, dropped, nil
}

type wireOperationIn struct {
	ID                  string               `json:"id"`
	Status              string               `json:"status"`
	CreatedAt           string               `json:"created_at"`
	FinishedAt          string               `json:"finished_at"`
	Customer            *wireCustomer        `json:"customer"`
	PaymentMethod       json.RawMessage      `json:"payment_method"`
	PayoutDetails       json.RawMessage      `json:"payout_details"`
	PaymentDetails      json.RawMessage      `json:"payment_details"`
	AmountDetails       *wireAmount          `json:"amount_details"`
	Amounts             *wireAmounts         `json:"amounts"`
	TransactionInfo     *wireTransactionInfo `json:"transaction_info"`
	PaymentOptions      *wirePaymentOptions  `json:"payment_options"`
	ParticipantDetails  *wireParticipants    `json:"participant_details"`
	CustomerInteraction *wireInteraction     `json:"customer_interaction"`
	Metadata            json.RawMessage      `json:"metadata"`
	Refunds             []wireRefundIn       `json:"refunds"`
	Recurrent           *wireRecurrent       `json:"recurrent"`
}

// decodeOperations reads the operation array named name, adding the paths of
// dropped secondary timestamps to dropped.
func decodeOperations(v int, raw json.RawMessage, payout bool, name string, dropped *droppedTimes) ([]Operation, error) {
	if absent(raw) {
		return nil, nil
	}
	var ws []wireOperationIn
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil, err
	}
	ops := make([]Operation, 0, len(ws))
	for i := range ws {
		op, opDropped, err := ws[i].operation(v, payout)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		dropped.under(fmt.Sprintf("%s[%d].", name, i), opDropped)
		ops = append(ops, op)
	}
	return ops, nil
}

// instrumentRaw picks the instrument member by version and operation kind.
func (w *wireOperationIn) instrumentRaw(v int, payout bool) (json.RawMessage, error) {
	mine, other := w.PaymentMethod, w.PayoutDetails
	if v == 2 {
		mine, other = w.PayoutDetails, w.PaymentMethod
	}
	if present(other) {
		return nil, ErrMixedVersion
	}
	if payout {
		return mine, nil
	}
	return w.PaymentDetails, nil
}

func (w *wireOperationIn) operation(v int, payout bool) (op Operation, dropped droppedTimes, err error) {
	op = Operation{ID: w.ID, Status: w.Status, Customer: fromWireCustomer(w.Customer),
		Amount: fromWireAmount(w.AmountDetails), Fees: w.Amounts.model(), TransactionInfo: fromWireTxInfo(w.TransactionInfo),
		PaymentOptions: fromWireOptions(w.PaymentOptions), Participants: fromWireParticipants(w.ParticipantDetails),
		CustomerInteraction: w.CustomerInteraction.model()}
	if !absent(w.Metadata) {
		op.Metadata = append(json.RawMessage(nil), w.Metadata...)
	}
	if op.CreatedAt, err = parseTime(w.CreatedAt); err != nil {
		return op, nil, fmt.Errorf("created_at: %w", err)
	}
	if op.FinishedAt, err = parseOptTime(w.FinishedAt); err != nil {
		return op, nil, fmt.Errorf("finished_at: %w", err)
	}
	raw, err := w.instrumentRaw(v, payout)
	if err != nil {
		return op, nil, err
	}
	if op.Instrument, err = decodeInstrument(raw); err != nil {
		return op, nil, err
	}
	for i := range w.Refunds {
		op.Refunds = append(op.Refunds, w.Refunds[i].model(fmt.Sprintf("refunds[%d].", i), &dropped))
	}
	if w.Recurrent != nil {
		op.RecurringToken = w.Recurrent.model("recurrent.", &dropped)
	}
	return op, dropped, nil
}

// wireRefundIn keeps its times raw: they are secondary timestamps, read
// leniently (see timestamp.go).
type wireRefundIn struct {
	ID              string               `json:"id"`
	Status          string               `json:"status"`
	CreatedAt       json.RawMessage      `json:"created_at"`
	FinishedAt      json.RawMessage      `json:"finished_at"`
	IsChargeback    bool                 `json:"is_chargeback"`
	AmountDetails   *wireAmount          `json:"amount_details"`
	TransactionInfo *wireTransactionInfo `json:"transaction_info"`
}

// model maps a refund; an unreadable time is left unset and its path (below
// prefix) added to dropped.
func (w *wireRefundIn) model(prefix string, dropped *droppedTimes) Refund {
	r := Refund{ID: w.ID, Status: w.Status, IsChargeback: w.IsChargeback,
		Amount: fromWireAmount(w.AmountDetails), TransactionInfo: fromWireTxInfo(w.TransactionInfo)}
	dropped.readValue(&r.CreatedAt, w.CreatedAt, prefix+"created_at")
	dropped.read(&r.FinishedAt, w.FinishedAt, prefix+"finished_at")
	return r
}

// The version-independent parts: instruments, fees, customer interaction.

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

// The results of the v1-only methods.

type wireFPSBank struct {
	ID      string `json:"id"`
	EngName string `json:"eng_name"`
	RuName  string `json:"ru_name"`
}

func decodeBanks(raw json.RawMessage) ([]FPSBank, error) {
	if absent(raw) {
		return nil, errMissingResult
	}
	var ws []wireFPSBank
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil, fmt.Errorf("banks: %w", err)
	}
	out := make([]FPSBank, 0, len(ws))
	for _, w := range ws {
		out = append(out, FPSBank{ID: w.ID, EngName: w.EngName, RuName: w.RuName})
	}
	return out, nil
}

// wireRecurrent keeps its times raw: they are secondary timestamps, read
// leniently (see timestamp.go).
type wireRecurrent struct {
	Token      string          `json:"token"`
	CreatedAt  json.RawMessage `json:"created_at"`
	FinishedAt json.RawMessage `json:"finished_at"`
	IsActive   bool            `json:"is_active"`
	Type       string          `json:"type"`
}

// decodeRecurrent reads a recurring token; an unreadable time is left unset
// and its path added to dropped.
func decodeRecurrent(raw json.RawMessage) (*RecurringToken, droppedTimes, error) {
	if absent(raw) {
		return nil, nil, errMissingResult
	}
	var w wireRecurrent
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, nil, fmt.Errorf("recurrent: %w", err)
	}
	var dropped droppedTimes
	return w.model("recurrent.", &dropped), dropped, nil
}

// model maps a recurring token; an unreadable time is left unset and its
// path (below prefix) added to dropped.
func (w *wireRecurrent) model(prefix string, dropped *droppedTimes) *RecurringToken {
	t := &RecurringToken{Token: w.Token, IsActive: w.IsActive, Type: w.Type}
	dropped.readValue(&t.CreatedAt, w.CreatedAt, prefix+"created_at")
	dropped.read(&t.FinishedAt, w.FinishedAt, prefix+"finished_at")
	return t
}

func decodePublicToken(raw json.RawMessage) (string, error) {
	if absent(raw) {
		return "", errMissingResult
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("public_token: %w", err)
	}
	return s, nil
}

type wireCardToken struct {
	Token string `json:"token"`
	Info  *struct {
		MaskedCardNumber string `json:"masked_card_number"`
		CardNetwork      string `json:"card_network"`
		CardType         string `json:"card_type"`
	} `json:"info"`
}

func decodeCardTokens(raw json.RawMessage) (map[string]CardTokenInfo, error) {
	if absent(raw) {
		return nil, errMissingResult
	}
	var ws map[string]wireCardToken
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	out := make(map[string]CardTokenInfo, len(ws))
	for ref, w := range ws {
		ti := CardTokenInfo{Token: w.Token}
		if w.Info != nil {
			// The service sends the number masked; mask it in case it did
			// not (bin and last4), and scrub any other long digit group.
			ti.MaskedCardNumber = sensitive.Scrub(sensitive.MaskText(w.Info.MaskedCardNumber))
			ti.CardNetwork, ti.CardType = w.Info.CardNetwork, w.Info.CardType
		}
		out[ref] = ti
	}
	return out, nil
}

type wireTokenInfoIn struct {
	NumberHash string `json:"number_hash"`
	Brand      string `json:"brand"`
	Last4      string `json:"last4"`
	Type       string `json:"type"`
}

func decodeTokenInfo(raw json.RawMessage) (*TokenInfo, error) {
	if absent(raw) {
		return nil, errMissingResult
	}
	var w wireTokenInfoIn
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("info: %w", err)
	}
	return &TokenInfo{NumberHash: w.NumberHash, Brand: w.Brand, Last4: w.Last4, Type: w.Type,
		Raw: append(json.RawMessage(nil), raw...)}, nil
}

type wireWallet struct {
	ID            string      `json:"id"`
	AmountDetails *wireAmount `json:"amount_details"`
}

func decodeWallets(raw json.RawMessage) ([]Wallet, error) {
	if absent(raw) {
		return nil, errMissingResult
	}
	var ws []wireWallet
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil, fmt.Errorf("wallets: %w", err)
	}
	out := make([]Wallet, 0, len(ws))
	for _, w := range ws {
		out = append(out, Wallet{ID: w.ID, Amount: fromWireAmount(w.AmountDetails)})
	}
	return out, nil
}
