package codec

import "github.com/paysession/paysession/schemas"

// KindRefund names the refund command.
const KindRefund CommandKind = "refund"

func init() { register(func() Command { return new(Refund) }) }

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

// Kind, SchemaName, SessionRef and Route make a Refund a Command.
func (*Refund) Kind() CommandKind        { return KindRefund }
func (*Refund) SchemaName() schemas.Name { return KindRefund.SchemaName() }
func (c *Refund) SessionRef() string     { return c.SessionID }
func (c *Refund) Route() Route           { return routeOf(c.Project, c.Submerchant) }

// Validate checks a Refund.
func (c *Refund) Validate() error {
	var p problems
	p.sessionID("session_id", c.SessionID)
	p.optionalAmount(c.Amount, c.Currency)
	p.metadata(c.Metadata)
	p.route(c.Project, c.Submerchant, c.Metadata, false)
	return p.err()
}
