package codec

import (
	"strconv"

	"github.com/paysession/paysession/internal/sensitive"
)

// instrument checks a payout instrument (payment_method / payout_details):
// a bank card may be given by its number alone.
func (p *problems) instrument(path string, in *Instrument) { p.instrumentOf(path, in, true) }

// instrumentOf checks an instrument; payout says whether a bank card's
// expiry may be left out (the spec's payout to a card needs the number only).
func (p *problems) instrumentOf(path string, in *Instrument, payout bool) {
	switch in.Type {
	case "":
		p.add(join(path, "type"), RuleRequired, "instrument type is required")
	case InstrumentCard:
		if in.BankAccount != nil {
			p.add(join(path, "bank_account"), RuleConsistency, "must be null when type is card")
		}
		if in.Card == nil {
			p.add(join(path, "card"), RuleRequired, "required when type is card")
			return
		}
		p.card(join(path, "card"), in.Card, payout)
	case InstrumentBankAccount:
		if in.Card != nil {
			p.add(join(path, "card"), RuleConsistency, "must be null when type is bank_account")
		}
		if in.BankAccount == nil {
			p.add(join(path, "bank_account"), RuleRequired, "required when type is bank_account")
			return
		}
		p.bankAccount(join(path, "bank_account"), in.BankAccount)
	default:
		p.add(join(path, "type"), RuleUnsupported, "instrument type must be card or bank_account")
	}
}

func (p *problems) card(path string, c *Card, payout bool) {
	set := map[string]bool{CardBank: c.BankCard != nil, CardTokenized: c.TokenizedCard != nil, CardEncrypted: c.EncryptedCard != nil}
	switch c.Type {
	case "":
		p.add(join(path, "type"), RuleRequired, "card type is required")
		return
	case CardBank, CardTokenized, CardEncrypted:
	default:
		p.add(join(path, "type"), RuleUnsupported, "card type must be bank_card, tokenized_card or encrypted_card")
		return
	}
	for _, member := range []string{CardBank, CardTokenized, CardEncrypted} {
		if member != c.Type && set[member] {
			p.add(join(path, member), RuleConsistency, "must be null when card type is "+c.Type)
		}
	}
	if !set[c.Type] {
		p.add(join(path, c.Type), RuleRequired, "required when card type is "+c.Type)
		return
	}
	switch c.Type {
	case CardBank:
		p.bankCard(join(path, CardBank), c.BankCard, payout)
	case CardTokenized:
		p.required(join(path, "tokenized_card.token"), c.TokenizedCard.Token)
	case CardEncrypted:
		p.required(join(path, "encrypted_card.number_hash"), c.EncryptedCard.NumberHash)
	}
}

// bankCard checks full card data. A payout's card may leave out the expiry
// (both month and year); a payment's may not.
func (p *problems) bankCard(path string, c *BankCard, payout bool) {
	switch {
	case c.Number == "":
		p.add(join(path, "number"), RuleRequired, "card number is required")
	case !c.Number.Luhn():
		p.add(join(path, "number"), RuleLuhn, "card number must be 12 to 19 digits with a valid check digit")
	}
	if payout && c.ExpirationMonth == "" && c.ExpirationYear == "" {
		p.securityCode(path, c.SecurityCode)
		return
	}
	month := c.ExpirationMonth
	if len(month) != 2 || !isDigits(month) || month < "01" || month > "12" {
		p.add(join(path, "expiration_month"), RuleFormat, "expiration month must be two digits 01..12")
	}
	if len(c.ExpirationYear) != 2 || !isDigits(c.ExpirationYear) {
		p.add(join(path, "expiration_year"), RuleFormat, "expiration year must be two digits")
	}
	p.securityCode(path, c.SecurityCode)
}

func (p *problems) securityCode(path string, sc *sensitive.SecurityCode) {
	if sc != nil {
		code := sc.Reveal()
		if !isDigits(code) || len(code) < 3 || len(code) > 4 {
			p.add(join(path, "security_code"), RuleFormat, "security code must be 3 or 4 digits")
		}
	}
}

func (p *problems) bankAccount(path string, a *BankAccount) {
	switch a.SystemType {
	case "":
		p.add(join(path, "system_type"), RuleRequired, "system type is required")
	case SystemRU:
		if a.FPS != nil {
			p.add(join(path, "fps"), RuleConsistency, "must be null when system type is ru")
		}
		if a.RU == nil {
			p.add(join(path, "ru"), RuleRequired, "required when system type is ru")
			return
		}
		p.ruAccount(join(path, "ru"), a.RU)
	case SystemFPS:
		if a.RU != nil {
			p.add(join(path, "ru"), RuleConsistency, "must be null when system type is "+SystemFPS)
		}
		if a.FPS == nil {
			p.add(join(path, "fps"), RuleRequired, "required when system type is "+SystemFPS)
			return
		}
		p.phone(join(path, "fps.phone"), a.FPS.Phone)
		p.required(join(path, "fps.bank_id"), a.FPS.BankID)
	default:
		p.add(join(path, "system_type"), RuleUnsupported, "system type must be ru or "+SystemFPS)
	}
}

func (p *problems) ruAccount(path string, a *RUAccount) {
	if !isDigits(a.BIC) || len(a.BIC) != 9 {
		p.add(join(path, "bic"), RuleFormat, "bic must be 9 digits")
	}
	if !isDigits(a.Account) || len(a.Account) < 5 || len(a.Account) > 34 {
		p.add(join(path, "account"), RuleFormat, "account must be 5 to 34 digits")
	}
	p.required(join(path, "full_name"), a.FullName)
}

func (p *problems) customer(path string, c *Customer) {
	if c == nil {
		return
	}
	p.required(join(path, "reference"), c.Reference)
	for i, e := range c.Emails {
		if !looksLikeEmail(e) {
			p.add(join(path, "emails")+"["+strconv.Itoa(i)+"]", RuleFormat, "must be an e-mail address")
		}
	}
}

func (p *problems) participants(path string, ps *Participants) {
	if ps == nil || ps.Sender == nil {
		return
	}
	if pc := ps.Sender.PostalCode; pc != nil && (!isDigits(*pc) || len(*pc) > 6) {
		p.add(join(path, "sender.postal_code"), RuleFormat, "postal code must be up to 6 digits")
	}
	if e := ps.Sender.Email; e != nil && !looksLikeEmail(*e) {
		p.add(join(path, "sender.email"), RuleFormat, "must be an e-mail address")
	}
}

func looksLikeEmail(s string) bool {
	at := -1
	for i := 0; i < len(s); i++ {
		if s[i] == '@' {
			at = i
		}
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return at > 0 && at < len(s)-1
}
