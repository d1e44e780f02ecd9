package codec

import "github.com/paysession/paysession/schemas"

// KindDisableRecurring names the disable_recurring command.
const KindDisableRecurring CommandKind = "disable_recurring"

func init() { register(func() Command { return new(DisableRecurring) }) }

// DisableRecurring disables a recurring-payment token (recurrent/disable).
type DisableRecurring struct {
	Token       string  `avro:"token" json:"token"`
	Project     *string `avro:"project" json:"project,omitempty"`
	Submerchant *string `avro:"submerchant" json:"submerchant,omitempty"`
}

// Kind, SchemaName, SessionRef and Route make a DisableRecurring a Command.
func (*DisableRecurring) Kind() CommandKind        { return KindDisableRecurring }
func (*DisableRecurring) SchemaName() schemas.Name { return KindDisableRecurring.SchemaName() }
func (*DisableRecurring) SessionRef() string       { return "" }
func (c *DisableRecurring) Route() Route           { return routeOf(c.Project, c.Submerchant) }

// Validate checks a DisableRecurring.
func (c *DisableRecurring) Validate() error {
	var p problems
	p.required("token", c.Token)
	p.route(c.Project, c.Submerchant, nil, false)
	return p.err()
}
