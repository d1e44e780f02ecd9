package codec

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

// Validate checks an InitPayment: the instrument must be a card.
func (c *InitPayment) Validate() error {
	var p problems
	p.paymentInstrument("instrument", &c.Instrument)
	p.amount("amount", c.Amount)
	p.currency("currency", c.Currency)
	p.customer("customer", &c.Customer)
	p.participants("participants", c.Participants)
	p.paymentOptions("payment_options", c.PaymentOptions)
	p.metadata(c.Metadata)
	p.route(c.Project, c.Submerchant, c.Metadata, true)
	return p.err()
}

// Validate checks a CreateSession: every field is optional, but what is
// present must be valid.
func (c *CreateSession) Validate() error {
	var p problems
	if c.PayoutInstrument != nil {
		p.instrument("payout_instrument", c.PayoutInstrument)
	}
	if c.PaymentInstrument != nil {
		p.paymentInstrument("payment_instrument", c.PaymentInstrument)
	}
	p.optionalAmount(c.Amount, c.Currency)
	p.participants("participants", c.Participants)
	p.customer("customer", c.Customer)
	p.paymentOptions("payment_options", c.PaymentOptions)
	p.metadata(c.Metadata)
	p.route(c.Project, c.Submerchant, c.Metadata, true)
	return p.err()
}

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

// Validate checks a StartPayment.
func (c *StartPayment) Validate() error {
	var p problems
	p.sessionID("session_id", c.SessionID)
	if c.Instrument != nil {
		p.paymentInstrument("instrument", c.Instrument)
	}
	p.optionalAmount(c.Amount, c.Currency)
	p.customer("customer", c.Customer)
	p.participants("participants", c.Participants)
	p.paymentOptions("payment_options", c.PaymentOptions)
	p.metadata(c.Metadata)
	p.route(c.Project, c.Submerchant, c.Metadata, true)
	return p.err()
}

// Validate checks a Capture.
func (c *Capture) Validate() error {
	var p problems
	p.sessionID("session_id", c.SessionID)
	p.optionalAmount(c.Amount, c.Currency)
	p.route(c.Project, c.Submerchant, nil, false)
	return p.err()
}

// Validate checks a Refund.
func (c *Refund) Validate() error {
	var p problems
	p.sessionID("session_id", c.SessionID)
	p.optionalAmount(c.Amount, c.Currency)
	p.metadata(c.Metadata)
	p.route(c.Project, c.Submerchant, c.Metadata, false)
	return p.err()
}

// Validate checks a Confirm.
func (c *Confirm) Validate() error {
	var p problems
	p.sessionID("session_id", c.SessionID)
	p.route(c.Project, c.Submerchant, nil, false)
	return p.err()
}

// Validate checks a Cancel.
func (c *Cancel) Validate() error {
	var p problems
	p.sessionID("session_id", c.SessionID)
	p.route(c.Project, c.Submerchant, nil, false)
	return p.err()
}

// Validate checks a DisableRecurring.
func (c *DisableRecurring) Validate() error {
	var p problems
	p.required("token", c.Token)
	p.route(c.Project, c.Submerchant, nil, false)
	return p.err()
}

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

// Validate checks a StatusRefresh.
func (c *StatusRefresh) Validate() error {
	var p problems
	p.sessionID("session_id", c.SessionID)
	p.route(c.Project, c.Submerchant, nil, false)
	return p.err()
}

// Validate checks a BankPayPush.
func (c *BankPayPush) Validate() error {
	var p problems
	p.sessionID("session_id", c.SessionID)
	p.phone("phone", c.Phone)
	p.route(c.Project, c.Submerchant, nil, false)
	return p.err()
}

// paymentInstrument checks the instrument of a card payment: type card.
func (p *problems) paymentInstrument(path string, in *Instrument) {
	if in.Type != "" && in.Type != InstrumentCard {
		p.add(join(path, "type"), RuleUnsupported, "a payment instrument must be a card")
		return
	}
	p.instrumentOf(path, in, false)
}

func (p *problems) requiredPtr(field string, v *string) {
	if v == nil {
		p.add(field, RuleRequired, "must not be blank")
		return
	}
	p.required(field, *v)
}
