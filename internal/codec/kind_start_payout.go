package codec

import "github.com/paysession/paysession/schemas"

// KindStartPayout names the start_payout command.
const KindStartPayout CommandKind = "start_payout"

func init() { register(func() Command { return new(StartPayout) }) }

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

// Kind, SchemaName, SessionRef and Route make a StartPayout a Command.
func (*StartPayout) Kind() CommandKind        { return KindStartPayout }
func (*StartPayout) SchemaName() schemas.Name { return KindStartPayout.SchemaName() }
func (c *StartPayout) SessionRef() string     { return c.SessionID }
func (c *StartPayout) Route() Route           { return routeOf(c.Project, c.Submerchant) }

// Validate checks a StartPayout.
func (c *StartPayout) Validate() error {
	var p problems
	p.sessionID("session_id", c.SessionID)
	if c.Instrument != nil {
		p.instrument("instrument", c.Instrument)
	}
	p.optionalAmount(c.Amount, c.Currency)
	p.participants("participants", c.Participants)
	p.customer("customer", c.Customer)
	p.metadata(c.Metadata)
	p.route(c.Project, c.Submerchant, c.Metadata, true)
	return p.err()
}
