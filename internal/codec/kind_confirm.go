package codec

import "github.com/paysession/paysession/schemas"

// KindConfirm names the confirm command.
const KindConfirm CommandKind = "confirm"

func init() { register(func() Command { return new(Confirm) }) }

// Confirm confirms a prepared operation (session/confirm).
type Confirm struct {
	SessionID   string  `avro:"session_id" json:"session_id"`
	Project     *string `avro:"project" json:"project,omitempty"`
	Submerchant *string `avro:"submerchant" json:"submerchant,omitempty"`
}

// Kind, SchemaName, SessionRef and Route make a Confirm a Command.
func (*Confirm) Kind() CommandKind        { return KindConfirm }
func (*Confirm) SchemaName() schemas.Name { return KindConfirm.SchemaName() }
func (c *Confirm) SessionRef() string     { return c.SessionID }
func (c *Confirm) Route() Route           { return routeOf(c.Project, c.Submerchant) }

// Validate checks a Confirm.
func (c *Confirm) Validate() error {
	var p problems
	p.sessionID("session_id", c.SessionID)
	p.route(c.Project, c.Submerchant, nil, false)
	return p.err()
}
