package payapi

import (
	"encoding/json"
	"testing"
)

// Table tests of the pure wire mapping for the cases the golden endpoints do
// not show: inferred types, unknown instrument and system types, raw metadata.
func TestInstrumentToWire(t *testing.T) {
	cases := []struct {
		name string
		in   *Instrument
		want string
	}{
		{"inferred card and bank_card", &Instrument{Card: &Card{BankCard: &BankCard{Number: "4000000000000002", ExpirationMonth: "01", ExpirationYear: "30"}}},
			`{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4000000000000002","expiration_month":"01","expiration_year":"30"}}}`},
		{"output-only card members are not sent", &Instrument{Type: "card", Card: &Card{Type: "tokenized_card", TokenizedCard: &TokenizedCard{Token: "t"}, Last4: "1111", Brand: "visa", BIN: "411111", CountryISO3: "RUS"}},
			`{"type":"card","card":{"type":"tokenized_card","tokenized_card":{"token":"t"}}}`},
		{"inferred fps account", &Instrument{BankAccount: &BankAccount{FPS: &FPSVerification{Phone: "79999999999"}}},
			`{"type":"bank_account","bank_account":{"system_type":"faster_payment_system_verification","faster_payment_system_verification":{"phone":"79999999999"}}}`},
		{"other system type", &Instrument{Type: "bank_account", BankAccount: &BankAccount{SystemType: "kz", Raw: json.RawMessage(`{"iban":"KZ00"}`)}},
			`{"type":"bank_account","bank_account":{"system_type":"kz","kz":{"iban":"KZ00"}}}`},
		{"unknown instrument type", &Instrument{Type: "wallet", Raw: json.RawMessage(`{"type":"wallet","wallet":{"id":"w"}}`)},
			`{"type":"wallet","wallet":{"id":"w"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := encodeBody(toWireInstrument(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestInstrumentFromWire(t *testing.T) {
	cases := []struct {
		name, raw string
		check     func(*Instrument) bool
	}{
		{"unknown type kept raw", `{"type":"wallet","wallet":{"id":"w"},"extra":1}`,
			func(in *Instrument) bool {
				return in.Type == "wallet" && string(in.Raw) == `{"type":"wallet","wallet":{"id":"w"},"extra":1}`
			}},
		{"other system type kept raw", `{"type":"bank_account","bank_account":{"system_type":"kz","kz":{"iban":"KZ00"}}}`,
			func(in *Instrument) bool {
				return in.BankAccount.SystemType == "kz" && string(in.BankAccount.Raw) == `{"iban":"KZ00"}`
			}},
		{"masked account", `{"type":"bank_account","bank_account":{"system_type":"ru","ru":{"bic":"1","account":"4081****1234","is_fast":true,"new":0}}}`,
			func(in *Instrument) bool {
				return in.BankAccount.RU.Account == "4081****1234" && in.BankAccount.RU.IsFast
			}},
		{"card without member", `{"type":"card","card":{"type":"encrypted_card","encrypted_card":{"number_hash":"h"},"last4":"0002"}}`,
			func(in *Instrument) bool { return in.Card.EncryptedCard.NumberHash == "h" && in.Card.Last4 == "0002" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in, err := decodeInstrument(json.RawMessage(tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(in) {
				t.Errorf("got %+v", in)
			}
		})
	}
}

// TestMetadataKeptRaw: metadata of any JSON type comes back byte for byte.
func TestMetadataKeptRaw(t *testing.T) {
	for _, md := range []string{`{"b":1,"a":[true,null,{"x":"y"}]}`, `"text"`, `42`, `[1,"2"]`, `true`} {
		raw := `{"id":"ps_1","payout_list":[{"id":"po_1","metadata":` + md + `}]}`
		s, _, err := decodeSession(2, json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(s.Payouts[0].Metadata); got != md {
			t.Errorf("metadata %s came back as %s", md, got)
		}
	}
	s, _, err := decodeSession(1, json.RawMessage(`{"id":"ps_1","payments":[{"id":"po_1","metadata":null}]}`))
	if err != nil || s.Payouts[0].Metadata != nil {
		t.Errorf("null metadata: %v %s", err, s.Payouts[0].Metadata)
	}
}

func TestFieldRule(t *testing.T) {
	cases := map[string][2]string{
		"amount_details.amount.positive":              {"amount_details.amount", "positive"},
		"session_id.blank":                            {"session_id", "blank"},
		"participant_details.sender.postal_code.size": {"participant_details.sender.postal_code", "size"},
		"headers.Content-Type.inclusion":              {"headers.Content-Type", "inclusion"},
		"card_elements.1.ref.non_unique":              {"card_elements.1.ref", "non_unique"},
		"unique":                                      {"", "unique"},
		"":                                            {"", ""},
		"Request is invalid.":                         {"unparseable", "unparseable"},
		".blank":                                      {"unparseable", "unparseable"},
		"amount.":                                     {"unparseable", "unparseable"},
		"payment_details.card.4000/0000/0000/0259": {"payment_details.card", "unparseable"},
		"number.4111.1111.1111.1111":               {"unparseable", "unparseable"},
		`"security_code":"737"`:                    {"", "unparseable"},
	}
	for in, want := range cases {
		f, r := fieldRule(in)
		if f != want[0] || r != want[1] {
			t.Errorf("fieldRule(%q) = %q, %q; want %q, %q", in, f, r, want[0], want[1])
		}
	}
}
