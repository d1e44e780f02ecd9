package codec

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/paysession/paysession/internal/sensitive"
)

// fieldsOf returns "field/rule" of every problem in err.
func fieldsOf(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			out = append(out, fieldsOf(e)...)
		}
		return out
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		return []string{ve.Field + "/" + ve.Rule}
	}
	return []string{"?" + err.Error()}
}

func cardInstrument(number string) Instrument {
	return Instrument{Type: InstrumentCard, Card: &Card{Type: CardBank, BankCard: &BankCard{
		Number: sensitive.PAN(number), ExpirationMonth: "12", ExpirationYear: "29"}}}
}

func TestValidate(t *testing.T) {
	good := sampleCommands()
	tests := []struct {
		name string
		cmd  Command
		want []string
	}{
		{"init payout ok", good[KindInitPayout], nil},
		{"zero amount and bad currency", &InitPayout{Instrument: cardInstrument("4111111111111111"), Amount: 0, Currency: "RUB"},
			[]string{"amount/positive", "currency/format"}},
		{"negative amount", &InitPayout{Instrument: cardInstrument("4111111111111111"), Amount: -5, Currency: "rub"}, []string{"amount/positive"}},
		{"missing currency", &InitPayout{Instrument: cardInstrument("4111111111111111"), Amount: 5}, []string{"currency/required"}},
		{"luhn", &InitPayout{Instrument: cardInstrument("4111111111111112"), Amount: 5, Currency: "rub"},
			[]string{"instrument.card.bank_card.number/luhn"}},
		{"no instrument type", &InitPayout{Amount: 5, Currency: "rub"}, []string{"instrument.type/required"}},
		{"card type without card", &InitPayout{Instrument: Instrument{Type: "card"}, Amount: 5, Currency: "rub"}, []string{"instrument.card/required"}},
		{"card and account both set", &InitPayout{Instrument: Instrument{Type: "card", Card: cardInstrument("4111111111111111").Card, BankAccount: &BankAccount{}}, Amount: 5, Currency: "rub"},
			[]string{"instrument.bank_account/consistency"}},
		{"bank_card type with token member", &InitPayout{Instrument: Instrument{Type: "card", Card: &Card{Type: CardBank, TokenizedCard: &TokenizedCard{Token: "t"}}}, Amount: 5, Currency: "rub"},
			[]string{"instrument.card.tokenized_card/consistency", "instrument.card.bank_card/required"}},
		{"bad expiry", &InitPayout{Instrument: Instrument{Type: "card", Card: &Card{Type: CardBank, BankCard: &BankCard{Number: "4111111111111111", ExpirationMonth: "13", ExpirationYear: "2029"}}}, Amount: 5, Currency: "rub"},
			[]string{"instrument.card.bank_card.expiration_month/format", "instrument.card.bank_card.expiration_year/format"}},
		{"bad security code", &InitPayout{Instrument: Instrument{Type: "card", Card: &Card{Type: CardBank, BankCard: &BankCard{Number: "4111111111111111", ExpirationMonth: "01", ExpirationYear: "29", SecurityCode: ptr(sensitive.SecurityCode("12a"))}}}, Amount: 5, Currency: "rub"},
			[]string{"instrument.card.bank_card.security_code/format"}},
		{"unknown system type", &InitPayout{Instrument: Instrument{Type: "bank_account", BankAccount: &BankAccount{SystemType: "swift"}}, Amount: 5, Currency: "rub"},
			[]string{"instrument.bank_account.system_type/unsupported"}},
		{"ru without ru", &InitPayout{Instrument: Instrument{Type: "bank_account", BankAccount: &BankAccount{SystemType: "ru"}}, Amount: 5, Currency: "rub"},
			[]string{"instrument.bank_account.ru/required"}},
		{"ru fields", &InitPayout{Instrument: Instrument{Type: "bank_account", BankAccount: &BankAccount{SystemType: "ru", RU: &RUAccount{BIC: "12", Account: "x"}}}, Amount: 5, Currency: "rub"},
			[]string{"instrument.bank_account.ru.bic/format", "instrument.bank_account.ru.account/format", "instrument.bank_account.ru.full_name/required"}},
		{"postal code too long", &InitPayout{Instrument: cardInstrument("4111111111111111"), Amount: 5, Currency: "rub", Participants: &Participants{Sender: &Sender{PostalCode: ptr("1234567")}}},
			[]string{"participants.sender.postal_code/format"}},
		{"bad metadata", &InitPayout{Instrument: cardInstrument("4111111111111111"), Amount: 5, Currency: "rub", Metadata: ptr(Metadata("{"))}, []string{"metadata/format"}},
		{"payment with bank account", &InitPayment{Instrument: Instrument{Type: "bank_account"}, Amount: 5, Currency: "rub", Customer: Customer{Reference: "c"}},
			[]string{"instrument.type/unsupported"}},
		{"payment without customer", &InitPayment{Instrument: cardInstrument("4111111111111111"), Amount: 5, Currency: "rub"}, []string{"customer.reference/required"}},
		{"bad email", &InitPayment{Instrument: cardInstrument("4111111111111111"), Amount: 5, Currency: "rub", Customer: Customer{Reference: "c", Emails: []string{"nope"}}},
			[]string{"customer.emails[0]/format"}},
		{"capture full", &Capture{SessionID: "ps_12"}, nil},
		{"capture bad session", &Capture{SessionID: "pm_12"}, []string{"session_id/format"}},
		{"capture missing session", &Capture{}, []string{"session_id/required"}},
		{"capture amount without currency", &Capture{SessionID: "ps_1", Amount: ptr(int64(5))}, []string{"currency/required"}},
		{"refund currency without amount", &Refund{SessionID: "ps_1", Currency: ptr("rub")}, []string{"amount/required"}},
		{"refund zero", &Refund{SessionID: "ps_1", Amount: ptr(int64(0)), Currency: ptr("rub")}, []string{"amount/positive"}},
		{"create session empty", &CreateSession{}, nil},
		{"start payout no session", &StartPayout{}, []string{"session_id/required"}},
		{"confirm", &Confirm{SessionID: "ps_1"}, nil},
		{"cancel", &Cancel{SessionID: "ps_"}, []string{"session_id/format"}},
		{"disable recurring", &DisableRecurring{Token: " "}, []string{"token/required"}},
		{"fps", &FPSVerification{Phone: "7900", Recipient: Recipient{FirstName: ptr("A")}},
			[]string{"phone/format", "bank_id/required", "recipient.last_name/required"}},
		{"status refresh", &StatusRefresh{SessionID: "ps_99"}, nil},
		{"bankpay push", &BankPayPush{SessionID: "ps_1", Phone: "+79000000000"}, []string{"phone/format"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cmd.Validate()
			got := fieldsOf(err)
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("problems %v, want %v (err: %v)", got, tt.want, err)
			}
			if err != nil && strings.Contains(err.Error(), "4111111111111112") {
				t.Fatalf("error leaks the card number: %v", err)
			}
		})
	}
}

func TestValidateIdempotencyKey(t *testing.T) {
	tests := []struct {
		key  string
		rule string
	}{
		{"abcd", ""},
		{strings.Repeat("k", 64), ""},
		{"!~09", ""},
		{"abc", RuleLength},
		{strings.Repeat("k", 65), RuleLength},
		{"ab cd", RuleFormat},
		{"abc\x7f", RuleFormat},
		{"ключ-1", RuleFormat},
	}
	for _, tt := range tests {
		err := ValidateIdempotencyKey(tt.key)
		var ve *ValidationError
		switch {
		case tt.rule == "" && err != nil:
			t.Errorf("%q: unexpected %v", tt.key, err)
		case tt.rule != "" && (!errors.As(err, &ve) || ve.Rule != tt.rule || ve.Field != "key"):
			t.Errorf("%q: got %v, want rule %s on key", tt.key, err, tt.rule)
		}
	}
}

func TestMaskAndSummary(t *testing.T) {
	if got := MaskAccount("40817810099910004312"); got != "****************4312" {
		t.Errorf("MaskAccount = %q", got)
	}
	if got := MaskAccount("123"); got != "***" {
		t.Errorf("MaskAccount short = %q", got)
	}
	// The session state's masking (once its own copy) agrees, and a
	// multi-byte character is never cut in half.
	for in, want := range map[string]string{"": "", "12": "**", "1234": "****", "12345": "*2345",
		"4081****4312": "********4312", "12ё345": "**ё345"} {
		if got := MaskAccount(in); got != want || !utf8.ValidString(got) {
			t.Errorf("MaskAccount(%q) = %q, want %q", in, got, want)
		}
	}
	in := cardInstrument("4111111111111111")
	s := SummarizeInstrument(&in)
	if *s.CardBIN != "411111" || *s.CardLast4 != "1111" || *s.CardType != CardBank {
		t.Errorf("summary %+v", s)
	}
	b, _ := MarshalAvro(&SessionState{Session: Session{ID: "ps_1", Operations: []Operation{{Instrument: s, Kind: OperationPayout}}}, Source: SourcePoll})
	if strings.Contains(string(b), "4111111111111111") {
		t.Error("summary leaks the card number")
	}
}

func TestScrub(t *testing.T) {
	for in, want := range map[string]string{
		"pan 4111111111111111 end": "pan [redacted] end",
		"4111 1111 1111 1111":      "[redacted]",
		"4111-1111-1111-1111":      "[redacted]",
		"offset 12345":             "offset 12345",
	} {
		if got := Scrub(in); got != want {
			t.Errorf("Scrub(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestScrubLooseForms checks the forms error strings used to let through:
// card numbers grouped by any single non-alphanumeric separator and a
// security code in free text.
func TestScrubLooseForms(t *testing.T) {
	for in, want := range map[string]string{
		"pan 4111.1111.1111.1111 end":   "pan [redacted] end",
		"4111/1111/1111/1111":           "[redacted]",
		"4111_1111_1111_1111":           "[redacted]",
		"card=5555:5555:5555:4444;":     "card=[redacted];",
		"bad cvv 737, retry":            "bad cvv [redacted], retry",
		"cvc: 1234":                     "cvc: [redacted]",
		"security code 123 rejected":    "security code [redacted] rejected",
		`field "Security_Code":"737"`:   `field "Security_Code":"[redacted]"`,
		"deadline 2026-11-24 took 1234": "deadline 2026-11-24 took 1234",
		"status 503 after 1.234s":       "status 503 after 1.234s",
	} {
		if got := Scrub(in); got != want {
			t.Errorf("Scrub(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestValidateIdempotencyKeyRejectsCardNumbers checks that a key holding a
// card number — Luhn-valid 12 to 19 digits, plain, grouped by any single
// non-alphanumeric separator or JSON-escaped — is invalid (rule card_data),
// and that keys that merely hold digits stay valid.
func TestValidateIdempotencyKeyRejectsCardNumbers(t *testing.T) {
	tests := []struct {
		name string
		key  string
		rule string // "" when the key is valid
	}{
		{"plain card", "4111111111111111", RuleCardData},
		{"mastercard", "5555555555554444", RuleCardData},
		{"12-digit luhn run", "123456789015", RuleCardData}, // shortest card length
		{"dots", "4111.1111.1111.1111", RuleCardData},
		{"dashes", "4111-1111-1111-1111", RuleCardData},
		{"slashes", "4111/1111/1111/1111", RuleCardData},
		{"underscores", "4111_1111_1111_1111", RuleCardData},
		{"spaces", "4111 1111 1111 1111", RuleCardData},
		{"colons", "4111:1111:1111:1111", RuleCardData},
		{"amex grouping", "3782-822463-10005", RuleCardData},
		{"card inside a key", "order-4111111111111111", RuleCardData},
		{"card after a prefix digit group", "k-5555.5555.5555.4444-retry", RuleCardData},
		{"json-escaped first digit", `\u0034111111111111111`, RuleCardData},
		{"not luhn", "4111111111111112", ""},
		{"eleven digits", "41111111113", ""},
		{"date and counter", "2026-11-24-0001", ""},
		{"uuid", "550e8400-e29b-41d4-a716-446655440000", ""},
		{"masked card", "411111******1111", ""},
		{"short digits", "key-4111", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateIdempotencyKey(tt.key)
			var ve *ValidationError
			switch {
			case tt.rule == "" && err != nil:
				t.Errorf("unexpected %v", err)
			case tt.rule != "" && (!errors.As(err, &ve) || ve.Rule != tt.rule || ve.Field != "key"):
				t.Errorf("got %v, want rule %s on key", err, tt.rule)
			}
			if err != nil && strings.Contains(err.Error(), strings.TrimPrefix(tt.key, "order-")) {
				t.Errorf("error quotes the key: %v", err)
			}
		})
	}
}

// TestValidateIdempotencyKeyAcceptsIDs: keys made of a prefix, an id and a
// sequence number are not card numbers, although the digits of about one in
// ten pass the Luhn check (make faults refused 300 of 3,000 keys
// "reb-69920512-000008" before groups were bounded to card groupings).
func TestValidateIdempotencyKeyAcceptsIDs(t *testing.T) {
	for _, format := range []string{"reb-69920512-%06d", "order-20261124-%06d", "payroll.2026.11.24.%06d", "gone-8ce50dd5-%05d"} {
		for i := range 3000 {
			k := fmt.Sprintf(format, i)
			if err := ValidateIdempotencyKey(k); err != nil {
				t.Fatalf("ValidateIdempotencyKey(%q) = %v, want nil", k, err)
			}
		}
	}
}
