package codec

import "github.com/paysession/paysession/schemas"

// KindCreateSession names the create_session command.
const KindCreateSession CommandKind = "create_session"

func init() { register(func() Command { return new(CreateSession) }) }

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

// Kind, SchemaName, SessionRef and Route make a CreateSession a Command.
func (*CreateSession) Kind() CommandKind        { return KindCreateSession }
func (*CreateSession) SchemaName() schemas.Name { return KindCreateSession.SchemaName() }
func (*CreateSession) SessionRef() string       { return "" }
func (c *CreateSession) Route() Route           { return routeOf(c.Project, c.Submerchant) }

// Validate checks a CreateSession: every field is optional, but what is
// present must be valid.
func (c *CreateSession) Validate() error {
	var p problems
	if c.PayoutInstrument != nil {
		p.instrument("payout_instrument", c.PayoutInstrument)
	}
	if c.PaymentInstrument != nil {
		p.paymentInstrument("payment_instrument", c.PaymentInstrument)
	}
	p.optionalAmount(c.Amount, c.Currency)
	p.participants("participants", c.Participants)
	p.customer("customer", c.Customer)
	p.paymentOptions("payment_options", c.PaymentOptions)
	p.metadata(c.Metadata)
	p.route(c.Project, c.Submerchant, c.Metadata, true)
	return p.err()
}
