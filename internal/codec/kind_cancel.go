package codec

import "github.com/paysession/paysession/schemas"

// KindCancel names the cancel command.
const KindCancel CommandKind = "cancel"

func init() { register(func() Command { return new(Cancel) }) }

// Cancel cancels a prepared operation (session/cancel).
type Cancel struct {
	SessionID   string  `avro:"session_id" json:"session_id"`
	Project     *string `avro:"project" json:"project,omitempty"`
	Submerchant *string `avro:"submerchant" json:"submerchant,omitempty"`
}

// Kind, SchemaName, SessionRef and Route make a Cancel a Command.
func (*Cancel) Kind() CommandKind        { return KindCancel }
func (*Cancel) SchemaName() schemas.Name { return KindCancel.SchemaName() }
func (c *Cancel) SessionRef() string     { return c.SessionID }
func (c *Cancel) Route() Route           { return routeOf(c.Project, c.Submerchant) }

// Validate checks a Cancel.
func (c *Cancel) Validate() error {
	var p problems
	p.sessionID("session_id", c.SessionID)
	p.route(c.Project, c.Submerchant, nil, false)
	return p.err()
}
