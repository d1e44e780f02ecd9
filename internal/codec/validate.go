package codec

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/paysession/paysession/internal/sensitive"
)

// problems collects the validation errors of one command, in field order.
type problems []error

func (p *problems) add(field, rule, reason string) {
	*p = append(*p, &ValidationError{Field: field, Rule: rule, Reason: reason})
}

func (p problems) err() error { return errors.Join(p...) }

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// ValidateIdempotencyKey checks an idempotency key (the record key): 4 to 64
// printable ASCII characters (0x21..0x7E) holding no card number. A key
// holds a card number when sensitive.ContainsCard finds one: 12 to 19
// Luhn-valid digits, alone or inside the key, also grouped by a single
// separator ("4111.1111.1111.1111") or JSON-escaped. Such a key would become
// the key of outcome records and the header of API calls, so it is refused
// first, with rule RuleCardData; numeric keys are therefore a poor choice
// (one 16-digit number in ten passes the Luhn check). The error is a
// *ValidationError for field "key" and never quotes the key.
func ValidateIdempotencyKey(key string) error {
	if sensitive.ContainsCard(key) {
		return &ValidationError{Field: "key", Rule: RuleCardData, Reason: "idempotency key must not hold a card number"}
	}
	if len(key) < 4 || len(key) > 64 {
		return &ValidationError{Field: "key", Rule: RuleLength, Reason: "idempotency key must be 4 to 64 characters"}
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return &ValidationError{Field: "key", Rule: RuleFormat, Reason: "idempotency key must be printable ASCII without spaces"}
		}
	}
	return nil
}

// ValidSessionID reports whether s has the shape ps_<digits>.
func ValidSessionID(s string) bool {
	rest, ok := strings.CutPrefix(s, "ps_")
	return ok && isDigits(rest) && len(rest) <= 30
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isLowerAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

func (p *problems) sessionID(field, v string) {
	switch {
	case v == "":
		p.add(field, RuleRequired, "session id is required")
	case !ValidSessionID(v):
		p.add(field, RuleFormat, "session id must have the shape ps_<digits>")
	}
}

func (p *problems) required(field, v string) {
	if strings.TrimSpace(v) == "" {
		p.add(field, RuleRequired, "must not be blank")
	}
}

func (p *problems) amount(field string, v int64) {
	if v <= 0 {
		p.add(field, RulePositive, "amount must be greater than 0 (minor units)")
	}
}

func (p *problems) currency(field, v string) {
	switch {
	case v == "":
		p.add(field, RuleRequired, "currency is required")
	case len(v) != 3 || !isLowerAlpha(v):
		p.add(field, RuleFormat, "currency must be 3 lowercase letters")
	}
}

// optionalAmount checks an amount that may be absent; currency goes with it.
func (p *problems) optionalAmount(amount *int64, currency *string) {
	switch {
	case amount != nil:
		p.amount("amount", *amount)
		if currency == nil {
			p.add("currency", RuleRequired, "currency is required with amount")
		} else {
			p.currency("currency", *currency)
		}
	case currency != nil:
		p.add("amount", RuleRequired, "amount is required with currency")
	}
}

func (p *problems) phone(field, v string) {
	switch {
	case v == "":
		p.add(field, RuleRequired, "phone is required")
	case !isDigits(v) || len(v) < 10 || len(v) > 15:
		p.add(field, RuleFormat, "phone must be 10 to 15 digits")
	}
}

// Card data in free text. A command's free-text fields — the customer's
// reference and e-mails, names and addresses of participants, a return URL,
// a project or submerchant, and anything in metadata — are sent to the API,
// which copies some of them back (customer.reference and metadata reach
// every session state and webhook event), and are logged and published
// with the command's outcome. So a command that holds card data there is
// invalid, rule RuleCardData, naming the field ("customer.reference",
// "metadata.note"), as a key that holds a card number is: the same matcher
// (internal/sensitive) decides. Card data is a card number — 12 to 19
// Luhn-valid digits, alone or grouped by one and the same single separator
// into groups of 3 to 6 digits, plain or JSON-escaped, or a longer digit
// group holding such a number — or 3 or 4 digits after the name of a
// security code ("cvv 321", "cvc=123", `"security_code":"999"`); in
// metadata also digits under a member named as a security code ({"cvv":
// "321"}). About one random 12–19 digit number in ten passes the Luhn
// check: numeric references of card lengths are a poor choice, as numeric
// keys are (schemas/README.md has the measured rates).
const cardDataReason = "must not hold a card number or security code"

// freeText refuses a free-text field that holds card data.
func (p *problems) freeText(field, v string) {
	if sensitive.ContainsCardData(v) {
		p.add(field, RuleCardData, cardDataReason)
	}
}

// freeTextPtr is freeText of an optional field.
func (p *problems) freeTextPtr(field string, v *string) {
	if v != nil {
		p.freeText(field, *v)
	}
}

// MaxMetadataBytes bounds a command's metadata (compacted JSON). The
// service copies metadata into the session, and the session's state into
// every update, state and webhook event the connector writes, several times
// when a session holds several operations: the bound keeps those records
// far below a topic's max.message.bytes (1 MiB by default), whatever the
// command.
const MaxMetadataBytes = 16 << 10

// metadata checks that metadata is one JSON document of at most
// MaxMetadataBytes holding no card data in any member name or value, at any
// depth.
func (p *problems) metadata(m *Metadata) {
	switch {
	case m == nil:
	case !m.Valid():
		p.add("metadata", RuleFormat, "metadata must be one JSON document")
	case len(*m) > MaxMetadataBytes:
		p.add("metadata", RuleLength, fmt.Sprintf("metadata of %d bytes exceeds %d bytes", len(*m), MaxMetadataBytes))
	default:
		if path, found := m.cardData(); found {
			p.add("metadata"+path, RuleCardData, cardDataReason)
		}
	}
}

// route checks the project and submerchant a command names. Both are sent
// as HTTP header values: printable ASCII, at most 64 and 256 characters.
// With a submerchant, a command that starts an operation (metadataRule)
// must carry the spec's submerchant metadata: a JSON object whose merchant
// is left blank and whose submerchant is the payment site's URL.
func (p *problems) route(project, submerchant *string, m *Metadata, metadataRule bool) {
	if project != nil {
		p.headerValue("project", *project, 64)
	}
	if submerchant == nil {
		return
	}
	p.headerValue("submerchant", *submerchant, 256)
	if metadataRule {
		p.submerchantMetadata(m)
	}
}

func (p *problems) headerValue(field, v string, max int) {
	p.freeText(field, v)
	switch {
	case strings.TrimSpace(v) == "":
		p.add(field, RuleRequired, "must not be blank when given (null means the configured default)")
	case len(v) > max:
		p.add(field, RuleLength, "must be at most "+strconv.Itoa(max)+" characters")
	default:
		for i := 0; i < len(v); i++ {
			if v[i] < 0x20 || v[i] > 0x7e {
				p.add(field, RuleFormat, "must be printable ASCII (it is sent as an HTTP header)")
				return
			}
		}
	}
}

// submerchantMetadata checks {"merchant": "", "submerchant": "<site URL>"}.
func (p *problems) submerchantMetadata(m *Metadata) {
	if m == nil {
		p.add("metadata", RuleRequired, `a submerchant's command needs metadata {"merchant": "", "submerchant": "<site URL>"}`)
		return
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal(m.Raw(), &doc) != nil || doc == nil {
		p.add("metadata", RuleFormat, `with a submerchant, metadata must be an object {"merchant": "", "submerchant": "<site URL>"}`)
		return
	}
	var site string
	if json.Unmarshal(doc["submerchant"], &site) != nil || !isSiteURL(site) {
		p.add("metadata.submerchant", RuleFormat, "must be the payment site's http(s) URL")
	}
	if raw, ok := doc["merchant"]; ok {
		var merchant *string
		if json.Unmarshal(raw, &merchant) != nil || (merchant != nil && strings.TrimSpace(*merchant) != "") {
			p.add("metadata.merchant", RuleFormat, "must be left blank for a submerchant")
		}
	}
}

func isSiteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && !strings.ContainsAny(s, " \t\r\n")
}

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
	p.freeText(join(path, "full_name"), a.FullName)
	p.freeTextPtr(join(path, "description"), a.Description)
}

func (p *problems) customer(path string, c *Customer) {
	if c == nil {
		return
	}
	p.required(join(path, "reference"), c.Reference)
	p.freeText(join(path, "reference"), c.Reference)
	for i, e := range c.Emails {
		field := join(path, "emails") + "[" + strconv.Itoa(i) + "]"
		if !looksLikeEmail(e) {
			p.add(field, RuleFormat, "must be an e-mail address")
		}
		p.freeText(field, e)
	}
}

func (p *problems) participants(path string, ps *Participants) {
	if ps == nil {
		return
	}
	if ps.Sender != nil {
		p.sender(join(path, "sender"), ps.Sender)
	}
	if ps.Recipient != nil {
		p.recipient(join(path, "recipient"), ps.Recipient)
	}
}

func (p *problems) sender(path string, s *Sender) {
	if pc := s.PostalCode; pc != nil && (!isDigits(*pc) || len(*pc) > 6) {
		p.add(join(path, "postal_code"), RuleFormat, "postal code must be up to 6 digits")
	}
	if e := s.Email; e != nil && !looksLikeEmail(*e) {
		p.add(join(path, "email"), RuleFormat, "must be an e-mail address")
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"full_name", s.FullName}, {"first_name", s.FirstName}, {"last_name", s.LastName}, {"city", s.City},
		{"street", s.Street}, {"ipv4", s.IPv4}, {"email", s.Email}} {
		p.freeTextPtr(join(path, f.name), f.v)
	}
}

// recipient checks the free text of a recipient's names.
func (p *problems) recipient(path string, r *Recipient) {
	p.freeTextPtr(join(path, "full_name"), r.FullName)
	p.freeTextPtr(join(path, "first_name"), r.FirstName)
	p.freeTextPtr(join(path, "last_name"), r.LastName)
	p.freeTextPtr(join(path, "middle_name"), r.MiddleName)
}

// paymentOptions checks the free text of payment options: the return URL.
func (p *problems) paymentOptions(path string, o *PaymentOptions) {
	if o != nil {
		p.freeTextPtr(join(path, "return_url"), o.ReturnURL)
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
