package codec

import "github.com/paysession/paysession/schemas"

// KindInitPayout names the init_payout command.
const KindInitPayout CommandKind = "init_payout"

func init() { register(func() Command { return new(InitPayout) }) }

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

// Kind, SchemaName, SessionRef and Route make a InitPayout a Command.
func (*InitPayout) Kind() CommandKind        { return KindInitPayout }
func (*InitPayout) SchemaName() schemas.Name { return KindInitPayout.SchemaName() }
func (*InitPayout) SessionRef() string       { return "" }
func (c *InitPayout) Route() Route           { return routeOf(c.Project, c.Submerchant) }

// Validate checks an InitPayout.
func (c *InitPayout) Validate() error {
	var p problems
	p.instrument("instrument", &c.Instrument)
	p.amount("amount", c.Amount)
	p.currency("currency", c.Currency)
	p.participants("participants", c.Participants)
	p.customer("customer", c.Customer)
	p.metadata(c.Metadata)
	p.route(c.Project, c.Submerchant, c.Metadata, true)
	return p.err()
}
