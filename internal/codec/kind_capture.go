package codec

import "github.com/paysession/paysession/schemas"

// KindCapture names the capture command.
const KindCapture CommandKind = "capture"

func init() { register(func() Command { return new(Capture) }) }

// Capture debits a held payment (session/capture); a nil Amount captures the
// full frozen amount.
type Capture struct {
	SessionID   string  `avro:"session_id" json:"session_id"`
	Amount      *int64  `avro:"amount" json:"amount,omitempty"`
	Currency    *string `avro:"currency" json:"currency,omitempty"`
	Project     *string `avro:"project" json:"project,omitempty"`
	Submerchant *string `avro:"submerchant" json:"submerchant,omitempty"`
}

// Kind, SchemaName, SessionRef and Route make a Capture a Command.
func (*Capture) Kind() CommandKind        { return KindCapture }
func (*Capture) SchemaName() schemas.Name { return KindCapture.SchemaName() }
func (c *Capture) SessionRef() string     { return c.SessionID }
func (c *Capture) Route() Route           { return routeOf(c.Project, c.Submerchant) }

// Validate checks a Capture.
func (c *Capture) Validate() error {
	var p problems
	p.sessionID("session_id", c.SessionID)
	p.optionalAmount(c.Amount, c.Currency)
	p.route(c.Project, c.Submerchant, nil, false)
	return p.err()
}
