package codec

import "github.com/paysession/paysession/schemas"

// KindBankPayPush names the bankpay_push command.
const KindBankPayPush CommandKind = "bankpay_push"

func init() { register(func() Command { return new(BankPayPush) }) }

// BankPayPush requests a payment-status push of a bank-app payment
// (bankpay/push).
type BankPayPush struct {
	SessionID   string  `avro:"session_id" json:"session_id"`
	Phone       string  `avro:"phone" json:"phone"`
	Project     *string `avro:"project" json:"project,omitempty"`
	Submerchant *string `avro:"submerchant" json:"submerchant,omitempty"`
}

// Kind, SchemaName, SessionRef and Route make a BankPayPush a Command.
func (*BankPayPush) Kind() CommandKind        { return KindBankPayPush }
func (*BankPayPush) SchemaName() schemas.Name { return KindBankPayPush.SchemaName() }
func (c *BankPayPush) SessionRef() string     { return c.SessionID }
func (c *BankPayPush) Route() Route           { return routeOf(c.Project, c.Submerchant) }

// Validate checks a BankPayPush.
func (c *BankPayPush) Validate() error {
	var p problems
	p.sessionID("session_id", c.SessionID)
	p.phone("phone", c.Phone)
	p.route(c.Project, c.Submerchant, nil, false)
	return p.err()
}
