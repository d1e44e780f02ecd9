package codec

import (
	"strings"
	"testing"
)

// TestValidateRefusesCardDataInFreeText: a command whose free-text fields
// hold a card number or a security code is invalid (rule card_data, naming
// the field), as a key that holds a card number is; the error never quotes
// the value (issue 37 item 2).
func TestValidateRefusesCardDataInFreeText(t *testing.T) {
	card := cardInstrument("4111111111111111")
	payment := func(ref string, meta string) *InitPayment {
		c := &InitPayment{Instrument: card, Amount: 5, Currency: "rub", Customer: Customer{Reference: ref}}
		if meta != "" {
			m := Metadata(meta)
			c.Metadata = &m
		}
		return c
	}
	tests := []struct {
		name string
		cmd  Command
		want []string
	}{
		{"reference with a card", payment("card 4000 0000 0000 0002", ""), []string{"customer.reference/card_data"}},
		{"reference with a dotted card", payment("4111.1111.1111.1111", ""), []string{"customer.reference/card_data"}},
		{"reference with an escaped card", payment(`\u0034111111111111111`, ""), []string{"customer.reference/card_data"}},
		{"reference with a security code", payment("cvv 321", ""), []string{"customer.reference/card_data"}},
		{"reference with CVC=", payment("order 7 CVC=123", ""), []string{"customer.reference/card_data"}},
		{"metadata note with a card", payment("c", `{"note":"card 4000/0000/0000/0002"}`), []string{"metadata.note/card_data"}},
		{"metadata deep", payment("c", `{"a":{"b":[1,{"c":"5555-5555-5555-4444"}]}}`), []string{"metadata.a.b[1].c/card_data"}},
		{"metadata number", payment("c", `{"n":4111111111111111}`), []string{"metadata.n/card_data"}},
		{"metadata escaped", payment("c", `{"n":"\u0034111111111111111"}`), []string{"metadata.n/card_data"}},
		{"metadata cvv member", payment("c", `{"cvv":"321"}`), []string{"metadata.cvv/card_data"}},
		{"metadata numeric cvv member", payment("c", `{"x":{"Security_Code":999}}`), []string{"metadata.x.Security_Code/card_data"}},
		{"metadata code in text", payment("c", `{"note":"cvv 321"}`), []string{"metadata.note/card_data"}},
		{"metadata code as quoted JSON", payment("c", `{"note":"{\"security_code\":\"999\"}"}`), []string{"metadata.note/card_data"}},
		{"metadata card as a member name", payment("c", `{"4111111111111111":"x"}`), []string{"metadata.*/card_data"}},
		{"metadata card under an odd name", payment("c", `{"my note":"4111111111111111"}`), []string{"metadata.*/card_data"}},
		{"metadata document is the text", payment("c", `"cvv 737"`), []string{"metadata/card_data"}},
		{"metadata array", payment("c", `["a","4111111111111111"]`), []string{"metadata[1]/card_data"}},
		{"participant name", &InitPayout{Instrument: card, Amount: 5, Currency: "rub",
			Participants: &Participants{Sender: &Sender{FullName: ptr("4111 1111 1111 1111")}, Recipient: &Recipient{LastName: ptr("cvv 737")}}},
			[]string{"participants.sender.full_name/card_data", "participants.recipient.last_name/card_data"}},
		{"return url", &StartPayment{SessionID: "ps_1", PaymentOptions: &PaymentOptions{ReturnURL: ptr("https://shop.example/back?pan=4111111111111111")}},
			[]string{"payment_options.return_url/card_data"}},
		{"project", &Capture{SessionID: "ps_1", Project: ptr("4111111111111111")}, []string{"project/card_data"}},
		{"email", &CreateSession{Customer: &Customer{Reference: "c", Emails: []string{"4111111111111111@example.com"}}},
			[]string{"customer.emails[0]/card_data"}},
		{"ru account description", &InitPayout{Instrument: Instrument{Type: InstrumentBankAccount, BankAccount: &BankAccount{SystemType: SystemRU,
			RU: &RUAccount{BIC: "044525225", Account: "40817810099910004312", FullName: "Ivan", Description: ptr("card 4111111111111111")}}}, Amount: 5, Currency: "rub"},
			[]string{"instrument.bank_account.ru.description/card_data"}},
		{"fps recipient", &FPSVerification{Phone: "79000000000", BankID: "b", Recipient: Recipient{FirstName: ptr("cvc 123"), LastName: ptr("P")}},
			[]string{"recipient.first_name/card_data"}},
		// Not card data.
		{"reference with an id", payment("cust-000123", ""), nil},
		{"reference not luhn", payment("4111111111111112", ""), nil},
		{"reference with a date", payment("order 2026-11-24 04:50:43", ""), nil},
		{"metadata cvc check result", payment("c", `{"cvc_check":"pass","cvv":null,"order":42}`), nil},
		{"metadata masked card", payment("c", `{"card":"411111******1111"}`), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cmd.Validate()
			if got := fieldsOf(err); strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("problems %v, want %v", got, tt.want)
			}
			if err == nil {
				return
			}
			for _, leak := range []string{"4111", "4000", "5555", "321", "737", "999", "123 "} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("error quotes the value (%s): %v", leak, err)
				}
			}
		})
	}
}

func TestMetadataMasked(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"order":42}`, `{"order":42}`},
		{`{"note":"card 4111 1111 1111 1111","cvv":"321"}`, `{"note":"card 411111******1111","cvv":"***"}`},
		{`{"n":4111111111111111}`, `{"n":"411111******1111"}`},
		{`{"a":[{"s":"cvc=123"}]}`, `{"a":[{"s":"cvc=***"}]}`},
		{`{"n":"\u0034111111111111111"}`, `{"n":"411111******1111"}`},
		{`"cvv 737"`, `"cvv ***"`},
		{`{`, ``},
	} {
		got := Metadata(tc.in).Masked()
		if string(got) != tc.want {
			t.Errorf("Masked(%s) = %s, want %s", tc.in, got, tc.want)
		}
		if got != "" && !got.Valid() {
			t.Errorf("Masked(%s) = %s: not JSON", tc.in, got)
		}
	}
}
