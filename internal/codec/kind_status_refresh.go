package codec

import "github.com/paysession/paysession/schemas"

// KindStatusRefresh names the status_refresh command.
const KindStatusRefresh CommandKind = "status_refresh"

func init() { register(func() Command { return new(StatusRefresh) }) }

// StatusRefresh queries a session's status (session/status) so that its
// state is published.
type StatusRefresh struct {
	SessionID   string  `avro:"session_id" json:"session_id"`
	Project     *string `avro:"project" json:"project,omitempty"`
	Submerchant *string `avro:"submerchant" json:"submerchant,omitempty"`
}

// Kind, SchemaName, SessionRef and Route make a StatusRefresh a Command.
func (*StatusRefresh) Kind() CommandKind        { return KindStatusRefresh }
func (*StatusRefresh) SchemaName() schemas.Name { return KindStatusRefresh.SchemaName() }
func (c *StatusRefresh) SessionRef() string     { return c.SessionID }
func (c *StatusRefresh) Route() Route           { return routeOf(c.Project, c.Submerchant) }

// Validate checks a StatusRefresh.
func (c *StatusRefresh) Validate() error {
	var p problems
	p.sessionID("session_id", c.SessionID)
	p.route(c.Project, c.Submerchant, nil, false)
	return p.err()
}
