package codec

import "github.com/paysession/paysession/schemas"

// KindFPSVerification names the fps_verification command.
const KindFPSVerification CommandKind = "fps_verification"

func init() { register(func() Command { return new(FPSVerification) }) }

// FPSVerification checks that a recipient is registered in the Faster
// Payment System (fps/customer_verification).
type FPSVerification struct {
	Phone       string    `avro:"phone" json:"phone"`
	BankID      string    `avro:"bank_id" json:"bank_id"`
	Recipient   Recipient `avro:"recipient" json:"recipient"`
	Project     *string   `avro:"project" json:"project,omitempty"`
	Submerchant *string   `avro:"submerchant" json:"submerchant,omitempty"`
}

// Kind, SchemaName, SessionRef and Route make a FPSVerification a Command.
func (*FPSVerification) Kind() CommandKind        { return KindFPSVerification }
func (*FPSVerification) SchemaName() schemas.Name { return KindFPSVerification.SchemaName() }
func (*FPSVerification) SessionRef() string       { return "" }
func (c *FPSVerification) Route() Route           { return routeOf(c.Project, c.Submerchant) }

// Validate checks an FPSVerification: phone, bank id, and the recipient's
// first and last names.
func (c *FPSVerification) Validate() error {
	var p problems
	p.phone("phone", c.Phone)
	p.required("bank_id", c.BankID)
	p.requiredPtr("recipient.first_name", c.Recipient.FirstName)
	p.requiredPtr("recipient.last_name", c.Recipient.LastName)
	p.recipient("recipient", &c.Recipient)
	p.route(c.Project, c.Submerchant, nil, false)
	return p.err()
}
