package codec

import "github.com/paysession/paysession/schemas"

// KindStartPayment names the start_payment command.
const KindStartPayment CommandKind = "start_payment"

func init() { register(func() Command { return new(StartPayment) }) }

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

// Kind, SchemaName, SessionRef and Route make a StartPayment a Command.
func (*StartPayment) Kind() CommandKind        { return KindStartPayment }
func (*StartPayment) SchemaName() schemas.Name { return KindStartPayment.SchemaName() }
func (c *StartPayment) SessionRef() string     { return c.SessionID }
func (c *StartPayment) Route() Route           { return routeOf(c.Project, c.Submerchant) }

// Validate checks a StartPayment.
func (c *StartPayment) Validate() error {
	var p problems
	p.sessionID("session_id", c.SessionID)
	if c.Instrument != nil {
		p.paymentInstrument("instrument", c.Instrument)
	}
	p.optionalAmount(c.Amount, c.Currency)
	p.customer("customer", c.Customer)
	p.participants("participants", c.Participants)
	p.paymentOptions("payment_options", c.PaymentOptions)
	p.metadata(c.Metadata)
	p.route(c.Project, c.Submerchant, c.Metadata, true)
	return p.err()
}
