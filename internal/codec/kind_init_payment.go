package codec

import "github.com/paysession/paysession/schemas"

// KindInitPayment names the init_payment command.
const KindInitPayment CommandKind = "init_payment"

func init() { register(func() Command { return new(InitPayment) }) }

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

// Kind, SchemaName, SessionRef and Route make a InitPayment a Command.
func (*InitPayment) Kind() CommandKind        { return KindInitPayment }
func (*InitPayment) SchemaName() schemas.Name { return KindInitPayment.SchemaName() }
func (*InitPayment) SessionRef() string       { return "" }
func (c *InitPayment) Route() Route           { return routeOf(c.Project, c.Submerchant) }

// Validate checks an InitPayment: the instrument must be a card.
func (c *InitPayment) Validate() error {
	var p problems
	p.paymentInstrument("instrument", &c.Instrument)
	p.amount("amount", c.Amount)
	p.currency("currency", c.Currency)
	p.customer("customer", &c.Customer)
	p.participants("participants", c.Participants)
	p.paymentOptions("payment_options", c.PaymentOptions)
	p.metadata(c.Metadata)
	p.route(c.Project, c.Submerchant, c.Metadata, true)
	return p.err()
}
