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
	// Route returns the partner project and submerchant the command names
	// (empty: the configured defaults).
	Route() Route
}

// Route is where a command's request goes on the service side: the partner
// project whose key signs it (X-PARTNER-PROJECT) and the payer of the
// request (X-PARTNER-SUBMERCHANT). Empty members mean the connector's
// configured defaults.
type Route struct {
	Project     string
	Submerchant string
}

func routeOf(project, submerchant *string) Route {
	var r Route
	if project != nil {
		r.Project = *project
	}
	if submerchant != nil {
		r.Submerchant = *submerchant
	}
	return r
}

// InitPayout creates a session and starts a payout (session/init/payout).
type InitPayout struct {
	Instrument   Instrument    `avro:"instrument" json:"instrument"`
	Amount       int64         `avro:"amount" json:"amount"`
	Currency     string        `avro:"currency" json:"currency"`
	Participants *Participants `avro:"participants" json:"participants,omitempty"`
	Customer     *Customer     `avro:"customer" json:"customer,omitempty"`
	Metadata     *Metadata     `avro:"metadata" json:"metadata,omitempty"`
	Project      *string       `avro:"project" json:"project,omitempty"`
	Submerchant  *string       `avro:"submerchant" json:"submerchant,omitempty"`
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
	Project        *string         `avro:"project" json:"project,omitempty"`
	Submerchant    *string         `avro:"submerchant" json:"submerchant,omitempty"`
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
	Project           *string         `avro:"project" json:"project,omitempty"`
	Submerchant       *string         `avro:"submerchant" json:"submerchant,omitempty"`
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
	Project      *string       `avro:"project" json:"project,omitempty"`
	Submerchant  *string       `avro:"submerchant" json:"submerchant,omitempty"`
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
	Project        *string         `avro:"project" json:"project,omitempty"`
	Submerchant    *string         `avro:"submerchant" json:"submerchant,omitempty"`
}

// Capture debits a held payment (session/capture); a nil Amount captures the
// full frozen amount.
type Capture struct {
	SessionID   string  `avro:"session_id" json:"session_id"`
	Amount      *int64  `avro:"amount" json:"amount,omitempty"`
	Currency    *string `avro:"currency" json:"currency,omitempty"`
	Project     *string `avro:"project" json:"project,omitempty"`
	Submerchant *string `avro:"submerchant" json:"submerchant,omitempty"`
}

// Refund refunds a successful payment (session/refund); a nil Amount refunds
// the full payment.
type Refund struct {
	SessionID   string    `avro:"session_id" json:"session_id"`
	Amount      *int64    `avro:"amount" json:"amount,omitempty"`
	Currency    *string   `avro:"currency" json:"currency,omitempty"`
	Metadata    *Metadata `avro:"metadata" json:"metadata,omitempty"`
	Project     *string   `avro:"project" json:"project,omitempty"`
	Submerchant *string   `avro:"submerchant" json:"submerchant,omitempty"`
}

// Confirm confirms a prepared operation (session/confirm).
type Confirm struct {
	SessionID   string  `avro:"session_id" json:"session_id"`
	Project     *string `avro:"project" json:"project,omitempty"`
	Submerchant *string `avro:"submerchant" json:"submerchant,omitempty"`
}

// Cancel cancels a prepared operation (session/cancel).
type Cancel struct {
	SessionID   string  `avro:"session_id" json:"session_id"`
	Project     *string `avro:"project" json:"project,omitempty"`
	Submerchant *string `avro:"submerchant" json:"submerchant,omitempty"`
}

// DisableRecurring disables a recurring-payment token (recurrent/disable).
type DisableRecurring struct {
	Token       string  `avro:"token" json:"token"`
	Project     *string `avro:"project" json:"project,omitempty"`
	Submerchant *string `avro:"submerchant" json:"submerchant,omitempty"`
}

// FPSVerification checks that a recipient is registered in the Faster
// Payment System (fps/customer_verification).
type FPSVerification struct {
	Phone       string    `avro:"phone" json:"phone"`
	BankID      string    `avro:"bank_id" json:"bank_id"`
	Recipient   Recipient `avro:"recipient" json:"recipient"`
	Project     *string   `avro:"project" json:"project,omitempty"`
	Submerchant *string   `avro:"submerchant" json:"submerchant,omitempty"`
}

// StatusRefresh queries a session's status (session/status) so that its
// state is published.
type StatusRefresh struct {
	SessionID   string  `avro:"session_id" json:"session_id"`
	Project     *string `avro:"project" json:"project,omitempty"`
	Submerchant *string `avro:"submerchant" json:"submerchant,omitempty"`
}

// BankPayPush requests a payment-status push of a bank-app payment
// (bankpay/push).
type BankPayPush struct {
	SessionID   string  `avro:"session_id" json:"session_id"`
	Phone       string  `avro:"phone" json:"phone"`
	Project     *string `avro:"project" json:"project,omitempty"`
	Submerchant *string `avro:"submerchant" json:"submerchant,omitempty"`
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

// Route implementations.
func (c *InitPayout) Route() Route       { return routeOf(c.Project, c.Submerchant) }
func (c *InitPayment) Route() Route      { return routeOf(c.Project, c.Submerchant) }
func (c *CreateSession) Route() Route    { return routeOf(c.Project, c.Submerchant) }
func (c *StartPayout) Route() Route      { return routeOf(c.Project, c.Submerchant) }
func (c *StartPayment) Route() Route     { return routeOf(c.Project, c.Submerchant) }
func (c *Capture) Route() Route          { return routeOf(c.Project, c.Submerchant) }
func (c *Refund) Route() Route           { return routeOf(c.Project, c.Submerchant) }
func (c *Confirm) Route() Route          { return routeOf(c.Project, c.Submerchant) }
func (c *Cancel) Route() Route           { return routeOf(c.Project, c.Submerchant) }
func (c *DisableRecurring) Route() Route { return routeOf(c.Project, c.Submerchant) }
func (c *FPSVerification) Route() Route  { return routeOf(c.Project, c.Submerchant) }
func (c *StatusRefresh) Route() Route    { return routeOf(c.Project, c.Submerchant) }
func (c *BankPayPush) Route() Route      { return routeOf(c.Project, c.Submerchant) }
