package paysim

import (
	"encoding/json"
)

const systemFPS = "faster_payment_system_verification"

// parseInstrument reads payment_details / payment_method / payout_details and
// resolves the card number of token and hash forms. Callers hold s.mu.
func (c *call) parseInstrument(name string, required, payment bool) (*instrument, error) {
	o, ok, err := c.body.object(name, required)
	if err != nil || !ok {
		return nil, err
	}
	typ, err := o.str("type", true)
	if err != nil {
		return nil, err
	}
	switch typ {
	case "card":
		return c.parseCard(o, payment)
	case "bank_account":
		if payment {
			return nil, invalid(o.sub("type"), "inclusion")
		}
		return parseBankAccount(o)
	}
	return nil, invalid(o.sub("type"), "inclusion")
}

func (c *call) parseCard(o fields, payment bool) (*instrument, error) {
	card, _, err := o.object("card", true)
	if err != nil {
		return nil, err
	}
	in := &instrument{Type: "card"}
	if in.CardType, err = card.str("type", true); err != nil {
		return nil, err
	}
	sub, _, err := card.object(in.CardType, true)
	switch in.CardType {
	case "bank_card", "tokenized_card", "encrypted_card":
		if err != nil {
			return nil, err
		}
	default:
		return nil, invalid(card.sub("type"), "inclusion")
	}
	switch in.CardType {
	case "bank_card":
		err = parseBankCard(sub, in, payment)
	case "tokenized_card":
		err = c.resolveToken(sub, in, payment)
	default:
		err = c.resolveHash(sub, in)
	}
	if err != nil {
		return nil, err
	}
	c.s.cards[numberHash(in.PAN)] = in.PAN
	return in, nil
}

func parseBankCard(b fields, in *instrument, payment bool) error {
	num, err := b.match("number", true, reDigits, "digits")
	if err != nil {
		return err
	}
	if len(num) < 12 || len(num) > 19 {
		return invalid(b.sub("number"), "format")
	}
	if !luhnValid(num) {
		return invalid(b.sub("number"), "luhn")
	}
	in.PAN = num
	// A payout to a card needs the number only ("bank_card (with card
	// number)"); a payment needs the expiry. A payout that gives one part of
	// the expiry must give both.
	_, hasMonth := b.m["expiration_month"]
	_, hasYear := b.m["expiration_year"]
	needExpiry := payment || hasMonth || hasYear
	if in.ExpMonth, err = b.match("expiration_month", needExpiry, reMonth, "two_digits"); err != nil {
		return err
	}
	if in.ExpYear, err = b.match("expiration_year", needExpiry, reTwoDigits, "two_digits"); err != nil {
		return err
	}
	_, err = b.match("security_code", payment, reCVC, "format")
	return err
}

// resolveToken finds the card of a token. A recurring token pays out from
// any project (the spec: tokens work for payouts regardless of the project
// in which they were obtained), but pays only in the project that issued
// it, and never where sender parameters make payments one-time only.
func (c *call) resolveToken(t fields, in *instrument, payment bool) error {
	tok, err := t.str("token", true)
	if err != nil {
		return err
	}
	in.Token = tok
	if pan, ok := c.s.cardToken[tok]; ok {
		in.PAN = pan
		return nil
	}
	if rt, ok := c.s.recurrent[tok]; ok {
		switch {
		case payment && rt.Project != c.project.ID:
			return invalid(t.sub("token"), "unknown")
		case payment && c.project.RequireSender:
			return invalid(t.sub("token"), "one_time_only")
		case !rt.Active:
			return invalid(t.sub("token"), "inactive")
		}
		in.PAN = rt.PAN
		return nil
	}
	return invalid(t.sub("token"), "unknown")
}

func (c *call) resolveHash(e fields, in *instrument) error {
	h, err := e.str("number_hash", true)
	if err != nil {
		return err
	}
	in.NumberHash = h
	pan, ok := c.s.cards[h]
	if !ok {
		return invalid(e.sub("number_hash"), "unknown")
	}
	in.PAN = pan
	return nil
}

func parseBankAccount(o fields) (*instrument, error) {
	ba, _, err := o.object("bank_account", true)
	if err != nil {
		return nil, err
	}
	in := &instrument{Type: "bank_account"}
	if in.SystemType, err = ba.str("system_type", true); err != nil {
		return nil, err
	}
	switch in.SystemType {
	case "ru":
		ru, _, err := ba.object("ru", true)
		if err != nil {
			return nil, err
		}
		in.RU = &ruAccount{}
		if in.RU.BIC, err = ru.match("bic", true, reBIC, "format"); err != nil {
			return nil, err
		}
		if in.RU.Account, err = ru.match("account", true, reAccount, "format"); err != nil {
			return nil, err
		}
		if in.RU.FullName, err = ru.str("full_name", true); err != nil {
			return nil, err
		}
		if in.RU.Description, err = ru.str("description", false); err != nil {
			return nil, err
		}
		in.RU.IsFast, err = ru.boolean("is_fast")
		return in, err
	case systemFPS:
		f, _, err := ba.object(systemFPS, true)
		if err != nil {
			return nil, err
		}
		if in.FPSPhone, err = f.match("phone", true, reDigits, "digits"); err != nil {
			return nil, err
		}
		if in.FPSBank, err = f.str("bank_id", true); err != nil {
			return nil, err
		}
		if !knownBank(in.FPSBank) {
			return nil, invalid(f.sub("bank_id"), "inclusion")
		}
		return in, nil
	}
	in.Raw = ba.m // structure of other system types: not shown; passed through
	return in, nil
}

// parseCustomer checks customer: reference string, contacts [{email}].
func (c *call) parseCustomer(required bool) (any, error) {
	o, ok, err := c.body.object("customer", required)
	if err != nil || !ok {
		return nil, err
	}
	if _, err := o.str("reference", false); err != nil {
		return nil, err
	}
	contacts, err := o.array("contacts", false)
	if err != nil {
		return nil, err
	}
	for i, v := range contacts {
		m, isObj := v.(map[string]any)
		path := o.sub("contacts") + "." + itoa(i)
		if !isObj {
			return nil, invalid(path, "type")
		}
		if _, err := (fields{path: path, m: m}).match("email", false, reEmail, "format"); err != nil {
			return nil, err
		}
	}
	return o.m, nil
}

// parseParticipants checks participant_details; requireSender applies the
// sender rule (first_name, last_name, ipv4) of payments without the widget.
func (c *call) parseParticipants(required, requireSender bool) (any, error) {
	o, ok, err := c.body.object("participant_details", required || requireSender)
	if err != nil || !ok {
		return nil, err
	}
	if r, ok, err := o.object("recipient", false); err != nil {
		return nil, err
	} else if ok {
		for _, k := range []string{"full_name", "first_name", "last_name", "middle_name"} {
			if _, err := r.str(k, false); err != nil {
				return nil, err
			}
		}
	}
	snd, ok, err := o.object("sender", requireSender)
	if err != nil || !ok {
		return o.m, err
	}
	for _, k := range []string{"full_name", "city", "street"} {
		if _, err := snd.str(k, false); err != nil {
			return nil, err
		}
	}
	for _, k := range []string{"first_name", "last_name"} {
		if _, err := snd.str(k, requireSender); err != nil {
			return nil, err
		}
	}
	if _, err := snd.match("ipv4", requireSender, reIPv4, "format"); err != nil {
		return nil, err
	}
	if _, err := snd.match("postal_code", false, rePostalCode, "max_6_digits"); err != nil {
		return nil, err
	}
	if _, err := snd.match("email", false, reEmail, "format"); err != nil {
		return nil, err
	}
	return o.m, nil
}

func (c *call) parseOptions() (any, error) {
	o, ok, err := c.body.object("payment_options", false)
	if err != nil || !ok {
		return nil, err
	}
	if _, err := o.match("return_url", false, reURL, "format"); err != nil {
		return nil, err
	}
	return o.m, nil
}

// parseMetadata returns metadata as given (any JSON type); for a
// submerchant it must be {"merchant": "", "submerchant": "<site URL>"}.
func (c *call) parseMetadata() (json.RawMessage, error) {
	v, present := c.body.m["metadata"]
	if !present {
		return nil, nil
	}
	if c.sub != "" && v != nil {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, invalid("metadata", "type")
		}
		f := fields{path: "metadata", m: m}
		if _, err := f.match("submerchant", true, reURL, "format"); err != nil {
			return nil, err
		}
		if !isBlank(m["merchant"]) {
			return nil, invalid("metadata.merchant", "present")
		}
	}
	b, err := json.Marshal(v)
	return b, err
}

func (c *call) sessionIDField() (string, error) { return c.body.str("session_id", true) }

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
