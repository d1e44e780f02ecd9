package paysim

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Rule vocabulary of invalid_request descriptions ("<field path>.<rule>"),
// exactly the rules the code emits (TestRuleVocabularyMatchesCode):
//
//	blank          required member missing, null, or an empty string
//	type           wrong JSON type (object, array, string, integer, boolean)
//	positive       amount not greater than zero (also admin clock seconds)
//	lowercase      currency code not lower case
//	format         value has the wrong shape (currency: 3 letters, bic: 9 digits,
//	               account: 20 digits, ipv4, email, URL, ISO 8601, security code,
//	               card number length, idempotency key with a byte outside
//	               printable ASCII 0x21..0x7E)
//	digits         value must consist of digits (phone, card number)
//	luhn           card number fails the Luhn check
//	two_digits     expiration_month (01..12) or expiration_year not two digits
//	max_6_digits   sender.postal_code longer than 6 digits or not digits
//	inclusion      value not among the allowed ones (type, system_type, bank_id,
//	               Content-Type)
//	mixed_version  a member name of the other API version (payment_method in v2,
//	               payout_details in v1)
//	length         idempotency key shorter than 4 or longer than 64 characters
//	unknown        referenced token or card hash is not known (a recurring token
//	               of another project, for a payment)
//	inactive       recurring token disabled
//	one_time_only  recurring token used for a payment in a project whose payments
//	               carry sender parameters (one-time payments only)
//	non_unique     a value that must be unique is repeated (card_elements[].ref)
//	expired        public token past its 24 hours
//	used           public token already used for its one operation
//	invalid_state  the session is not in a state that allows the method
//	exceeds_frozen capture above the frozen amount
//	exceeds_paid   refund above what was paid and not yet refunded
//	currency       amount currency differs from the operation's (capture, refund)
//	present        member must be blank (metadata.merchant for submerchants)
//	invalid_json   body is not a JSON object
//	unreadable     body could not be read
//	too_large      body larger than the sandbox accepts
//	invalid        admin fault knobs out of range

// fields is one JSON object being validated, with its path.
type fields struct {
	path string
	m    map[string]any
}

func (f fields) sub(name string) string {
	if f.path == "" {
		return name
	}
	return f.path + "." + name
}

func isBlank(v any) bool {
	if v == nil {
		return true
	}
	s, ok := v.(string)
	return ok && strings.TrimSpace(s) == ""
}

// object returns the member name as an object; ok false when absent.
func (f fields) object(name string, required bool) (fields, bool, error) {
	v, present := f.m[name]
	if !present || v == nil {
		if required {
			return fields{}, false, invalid(f.sub(name), "blank")
		}
		return fields{}, false, nil
	}
	m, isObj := v.(map[string]any)
	if !isObj {
		return fields{}, false, invalid(f.sub(name), "type")
	}
	return fields{path: f.sub(name), m: m}, true, nil
}

func (f fields) str(name string, required bool) (string, error) {
	v, present := f.m[name]
	if !present || v == nil {
		if required {
			return "", invalid(f.sub(name), "blank")
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", invalid(f.sub(name), "type")
	}
	if required && strings.TrimSpace(s) == "" {
		return "", invalid(f.sub(name), "blank")
	}
	return s, nil
}

// match is str plus a shape check with the given rule.
func (f fields) match(name string, required bool, re *regexp.Regexp, rule string) (string, error) {
	s, err := f.str(name, required)
	if err != nil || s == "" {
		return s, err
	}
	if !re.MatchString(s) {
		return "", invalid(f.sub(name), rule)
	}
	return s, nil
}

func (f fields) integer(name string, required bool) (int64, bool, error) {
	v, present := f.m[name]
	if !present || v == nil {
		if required {
			return 0, false, invalid(f.sub(name), "blank")
		}
		return 0, false, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, false, invalid(f.sub(name), "type")
	}
	i, err := n.Int64()
	if err != nil {
		return 0, false, invalid(f.sub(name), "type")
	}
	return i, true, nil
}

func (f fields) boolean(name string) (bool, error) {
	v, present := f.m[name]
	if !present || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, invalid(f.sub(name), "type")
	}
	return b, nil
}

func (f fields) array(name string, required bool) ([]any, error) {
	v, present := f.m[name]
	if !present || v == nil {
		if required {
			return nil, invalid(f.sub(name), "blank")
		}
		return nil, nil
	}
	a, ok := v.([]any)
	if !ok {
		return nil, invalid(f.sub(name), "type")
	}
	if required && len(a) == 0 {
		return nil, invalid(f.sub(name), "blank")
	}
	return a, nil
}

var (
	reCurrency   = regexp.MustCompile(`^[a-z]{3}$`)
	reDigits     = regexp.MustCompile(`^[0-9]+$`)
	reMonth      = regexp.MustCompile(`^(0[1-9]|1[0-2])$`)
	reTwoDigits  = regexp.MustCompile(`^[0-9]{2}$`)
	reCVC        = regexp.MustCompile(`^[0-9]{3,4}$`)
	reBIC        = regexp.MustCompile(`^[0-9]{9}$`)
	reAccount    = regexp.MustCompile(`^[0-9]{20}$`)
	rePostalCode = regexp.MustCompile(`^[0-9]{1,6}$`)
	reEmail      = regexp.MustCompile(`^[^@\s]+@[^@\s]+$`)
	reURL        = regexp.MustCompile(`^https?://\S+$`)
	reIPv4       = regexp.MustCompile(`^((25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])$`)
)

// amountIn parses amount_details: amount a positive integer, currency lowercase.
func amountIn(f fields, name string, required bool) (*amount, error) {
	o, ok, err := f.object(name, required)
	if err != nil || !ok {
		return nil, err
	}
	v, _, err := o.integer("amount", true)
	if err != nil {
		return nil, err
	}
	if v <= 0 {
		return nil, invalid(o.sub("amount"), "positive")
	}
	cur, err := o.str("currency", true)
	if err != nil {
		return nil, err
	}
	if strings.ToLower(cur) != cur {
		return nil, invalid(o.sub("currency"), "lowercase")
	}
	if !reCurrency.MatchString(cur) {
		return nil, invalid(o.sub("currency"), "format")
	}
	return &amount{Value: v, Currency: cur}, nil
}

// checkMixedVersion rejects the other version's member names.
func checkMixedVersion(version int, body map[string]any) error {
	foreign := map[int][]string{
		1: {"payout_details", "payout_list", "payment_list"},
		2: {"payment_method", "payments", "acquiring_payments"},
	}[version]
	for _, name := range foreign {
		if _, ok := body[name]; ok {
			return invalid(name, "mixed_version")
		}
	}
	return nil
}

// payoutField is the version's name of the payout instrument.
func payoutField(version int) string {
	if version == 2 {
		return "payout_details"
	}
	return "payment_method"
}

func luhnValid(num string) bool {
	sum, double := 0, false
	for i := len(num) - 1; i >= 0; i-- {
		d := int(num[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}
