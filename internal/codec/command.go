package codec

// Command is a decoded command record of any kind. The concrete types are
// the pointers *InitPayout, *InitPayment, ... of this package; switch on them
// to call the API.
type Command interface {
	Record
	// Kind returns the command kind.
	Kind() CommandKind
	// SessionRef returns the session id the command acts on, or "" for
	// commands that create a session or name none. Commands with the same
	// SessionRef must run in offset order.
	SessionRef() string
	// Validate checks the command's fields; problems are *ValidationError
	// values joined with errors.Join, each naming the field path.
	Validate() error
}

// InitPayout creates a session and starts a payout (session/init/payout).
type InitPayout struct {
	Instrument   Instrument    `avro:"instrument" json:"instrument"`
	Amount       int64         `avro:"amount" json:"amount"`
	Currency     string        `avro:"currency" json:"currency"`
	Participants *Participants `avro:"participants" json:"participants,omitempty"`
	Customer     *Customer     `avro:"customer" json:"customer,omitempty"`
	Metadata     *Metadata     `avro:"metadata" json:"metadata,omitempty"`
}

// InitPayment creates a session and starts a card payment (session/init/payment).
type InitPayment struct {
	Instrument     Instrument      `avro:"instrument" json:"instrument"`
	Amount         int64           `avro:"amount" json:"amount"`
	Currency       string          `avro:"currency" json:"currency"`
	Customer       Customer        `avro:"customer" json:"customer"`
	Participants   *Participants   `avro:"participants" json:"participants,omitempty"`
	PaymentOptions *PaymentOptions `avro:"payment_options" json:"payment_options,omitempty"`
	Metadata       *Metadata       `avro:"metadata" json:"metadata,omitempty"`
}

// CreateSession creates a session without starting an operation (session/create).
type CreateSession struct {
	PayoutInstrument  *Instrument     `avro:"payout_instrument" json:"payout_instrument,omitempty"`
	PaymentInstrument *Instrument     `avro:"payment_instrument" json:"payment_instrument,omitempty"`
	Amount            *int64          `avro:"amount" json:"amount,omitempty"`
	Currency          *string         `avro:"currency" json:"currency,omitempty"`
	Participants      *Participants   `avro:"participants" json:"participants,omitempty"`
	Customer          *Customer       `avro:"customer" json:"customer,omitempty"`
	PaymentOptions    *PaymentOptions `avro:"payment_options" json:"payment_options,omitempty"`
	Metadata          *Metadata       `avro:"metadata" json:"metadata,omitempty"`
}

// StartPayout starts a payout in an existing session (session/start/payout).
type StartPayout struct {
	SessionID    string        `avro:"session_id" json:"session_id"`
	Instrument   *Instrument   `avro:"instrument" json:"instrument,omitempty"`
	Amount       *int64        `avro:"amount" json:"amount,omitempty"`
	Currency     *string       `avro:"currency" json:"currency,omitempty"`
	Participants *Participants `avro:"participants" json:"participants,omitempty"`
	Customer     *Customer     `avro:"customer" json:"customer,omitempty"`
	Metadata     *Metadata     `avro:"metadata" json:"metadata,omitempty"`
}

// StartPayment starts a payment in an existing session (session/start/payment).
type StartPayment struct {
	SessionID      string          `avro:"session_id" json:"session_id"`
	Instrument     *Instrument     `avro:"instrument" json:"instrument,omitempty"`
	Amount         *int64          `avro:"amount" json:"amount,omitempty"`
	Currency       *string         `avro:"currency" json:"currency,omitempty"`
	Customer       *Customer       `avro:"customer" json:"customer,omitempty"`
	Participants   *Participants   `avro:"participants" json:"participants,omitempty"`
	PaymentOptions *PaymentOptions `avro:"payment_options" json:"payment_options,omitempty"`
	Metadata       *Metadata       `avro:"metadata" json:"metadata,omitempty"`
}

// Capture debits a held payment (session/capture); a nil Amount captures the
// full frozen amount.
type Capture struct {
	SessionID string  `avro:"session_id" json:"session_id"`
	Amount    *int64  `avro:"amount" json:"amount,omitempty"`
	Currency  *string `avro:"currency" json:"currency,omitempty"`
}

// Refund refunds a successful payment (session/refund); a nil Amount refunds
// the full payment.
type Refund struct {
	SessionID string    `avro:"session_id" json:"session_id"`
	Amount    *int64    `avro:"amount" json:"amount,omitempty"`
	Currency  *string   `avro:"currency" json:"currency,omitempty"`
	Metadata  *Metadata `avro:"metadata" json:"metadata,omitempty"`
}

// Confirm confirms a prepared operation (session/confirm).
type Confirm struct {
	SessionID string `avro:"session_id" json:"session_id"`
}

// Cancel cancels a prepared operation (session/cancel).
type Cancel struct {
	SessionID string `avro:"session_id" json:"session_id"`
}

// DisableRecurring disables a recurring-payment token (recurrent/disable).
type DisableRecurring struct {
	Token string `avro:"token" json:"token"`
}

// FPSVerification checks that a recipient is registered in the Faster
// Payment System (fps/customer_verification).
type FPSVerification struct {
	Phone     string    `avro:"phone" json:"phone"`
	BankID    string    `avro:"bank_id" json:"bank_id"`
	Recipient Recipient `avro:"recipient" json:"recipient"`
}

// StatusRefresh queries a session's status (session/status) so that its
// state is published.
type StatusRefresh struct {
	SessionID string `avro:"session_id" json:"session_id"`
}

// BankPayPush requests a payment-status push of a bank-app payment
// (bankpay/push).
type BankPayPush struct {
	SessionID string `avro:"session_id" json:"session_id"`
	Phone     string `avro:"phone" json:"phone"`
}

// Kind implementations.
func (*InitPayout) Kind() CommandKind       { return KindInitPayout }
func (*InitPayment) Kind() CommandKind      { return KindInitPayment }
func (*CreateSession) Kind() CommandKind    { return KindCreateSession }
func (*StartPayout) Kind() CommandKind      { return KindStartPayout }
func (*StartPayment) Kind() CommandKind     { return KindStartPayment }
func (*Capture) Kind() CommandKind          { return KindCapture }
func (*Refund) Kind() CommandKind           { return KindRefund }
func (*Confirm) Kind() CommandKind          { return KindConfirm }
func (*Cancel) Kind() CommandKind           { return KindCancel }
func (*DisableRecurring) Kind() CommandKind { return KindDisableRecurring }
func (*FPSVerification) Kind() CommandKind  { return KindFPSVerification }
func (*StatusRefresh) Kind() CommandKind    { return KindStatusRefresh }
func (*BankPayPush) Kind() CommandKind      { return KindBankPayPush }

// SessionRef implementations.
func (*InitPayout) SessionRef() string       { return "" }
func (*InitPayment) SessionRef() string      { return "" }
func (*CreateSession) SessionRef() string    { return "" }
func (c *StartPayout) SessionRef() string    { return c.SessionID }
func (c *StartPayment) SessionRef() string   { return c.SessionID }
func (c *Capture) SessionRef() string        { return c.SessionID }
func (c *Refund) SessionRef() string         { return c.SessionID }
func (c *Confirm) SessionRef() string        { return c.SessionID }
func (c *Cancel) SessionRef() string         { return c.SessionID }
func (*DisableRecurring) SessionRef() string { return "" }
func (*FPSVerification) SessionRef() string  { return "" }
func (c *StatusRefresh) SessionRef() string  { return c.SessionID }
func (c *BankPayPush) SessionRef() string    { return c.SessionID }
