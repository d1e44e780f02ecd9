package codec

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/paysession/paysession/internal/logging"
	"github.com/paysession/paysession/internal/sensitive"
)

const (
	testPAN    = "4111111111111111"
	testMasked = "411111******1111"
	testCode   = "737"
)

func cardPayment(t *testing.T) []byte {
	t.Helper()
	code := sensitive.SecurityCode(testCode)
	v, err := EncodeSingleObject(&InitPayment{
		Instrument: Instrument{Type: InstrumentCard, Card: &Card{Type: CardBank, BankCard: &BankCard{
			Number: testPAN, ExpirationMonth: "12", ExpirationYear: "29", SecurityCode: &code}}},
		Amount: 5000, Currency: "RUB", Customer: Customer{Reference: "c-1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func cardPayout(t *testing.T) []byte {
	t.Helper()
	v, err := EncodeSingleObject(&InitPayout{
		Instrument: Instrument{Type: InstrumentCard, Card: &Card{Type: CardBank, BankCard: &BankCard{
			Number: "5555555555554444", ExpirationMonth: "12", ExpirationYear: "29"}}},
		Amount: 100, Currency: "RUB",
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func soeCapture(t *testing.T) []byte {
	t.Helper()
	v, err := EncodeSingleObject(&Capture{SessionID: "ps_1234567890123456"})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestProtectValue(t *testing.T) {
	payment := cardPayment(t)
	unknownFP := append([]byte{}, payment...)
	unknownFP[5] ^= 0xFF
	confluent := append([]byte{0, 0, 0, 0, 7}, payment[10:]...)
	tests := []struct {
		name    string
		value   []byte
		want    ValueProtection
		has     []string // substrings the protected value must contain
		isJSON  bool     // the protected value must still parse
		decoded func(t *testing.T, out []byte)
	}{
		{name: "json pan and security code",
			value: []byte(`{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4111111111111111","expiration_month":"12","expiration_year":"29","security_code":"737"}}},"amount":5000}`),
			want:  ValueMasked, has: []string{`"number":"` + testMasked + `"`, `"security_code":"***"`, `"amount":5000`}, isJSON: true},
		{name: "json spaced pan", value: []byte(`{"note": "card 4111 1111 1111 1111 here"}`),
			want: ValueMasked, has: []string{`"note": "card ` + testMasked + ` here"`}, isJSON: true},
		{name: "json pan as a number", value: []byte(`{"number": 4111111111111111, "n": 1}`),
			want: ValueMasked, has: []string{`"number": "` + testMasked + `", "n": 1`}, isJSON: true},
		{name: "json escaped digits", value: []byte(`{"number":"\u0034111111111111111"}`),
			want: ValueMasked, has: []string{testMasked}, isJSON: true},
		{name: "json numeric security code in nested object", value: []byte(`{"security_code":{"v":737,"w":["12"]}}`),
			want: ValueMasked, has: []string{`{"v":"***","w":["***"]}`}, isJSON: true},
		{name: "truncated json dashed pan", value: []byte(`{"number":"4111-1111-1111-1111","security_code":"73`),
			want: ValueMasked, has: []string{testMasked, `"security_code":"***"`}},
		{name: "no pan", value: []byte(`{"session_id":"ps_1","amount":1234567812345678}`), want: ValueOriginal},
		{name: "plain text no pan", value: []byte(`not json at all`), want: ValueOriginal},
		{name: "empty", value: nil, want: ValueOriginal},
		{name: "avro init_payment with card", value: payment, want: ValueMasked,
			decoded: func(t *testing.T, out []byte) {
				var got InitPayment
				if err := decodeSingleObject(got.SchemaName(), out, &got); err != nil {
					t.Fatalf("masked value does not decode: %v", err)
				}
				bc := got.Instrument.Card.BankCard
				if bc.Number.Reveal() != testMasked || bc.SecurityCode == nil || bc.SecurityCode.Reveal() != maskedSecret ||
					got.Amount != 5000 || got.Customer.Reference != "c-1" {
					t.Errorf("masked payment: number %s, code set %v, amount %d", bc.Number.Masked(), bc.SecurityCode != nil, got.Amount)
				}
			}},
		{name: "avro init_payout with card", value: cardPayout(t), want: ValueMasked, has: []string{"555555******4444"}},
		{name: "avro without card", value: soeCapture(t), want: ValueOriginal},
		{name: "avro unknown fingerprint", value: unknownFP, want: ValueWithheld},
		{name: "avro truncated", value: payment[:len(payment)-8], want: ValueWithheld},
		{name: "confluent without registry", value: confluent, want: ValueWithheld},
		{name: "binary", value: []byte{0xC3, 0x02, 0xFF, 0xFE}, want: ValueWithheld},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, got := (*Decoder)(nil).ProtectValue(context.Background(), tt.value)
			if got != tt.want {
				t.Fatalf("protection %s; want %s", got, tt.want)
			}
			switch tt.want {
			case ValueOriginal:
				if !bytes.Equal(out, tt.value) {
					t.Errorf("original value changed")
				}
			case ValueWithheld:
				if len(out) != 0 {
					t.Errorf("withheld value has %d bytes", len(out))
				}
			}
			if tt.want != ValueOriginal {
				assertNoCardData(t, out)
			}
			for _, s := range tt.has {
				if !bytes.Contains(out, []byte(s)) {
					t.Errorf("protected value lacks %q", s)
				}
			}
			if tt.isJSON && !json.Valid(out) {
				t.Errorf("protected JSON no longer parses")
			}
			if tt.decoded != nil {
				tt.decoded(t, out)
			}
		})
	}
}

// assertNoCardData fails when a protected value still holds a card number or
// the security code (reported without quoting the value).
func assertNoCardData(t *testing.T, out []byte) {
	t.Helper()
	s := string(out)
	if strings.Contains(s, testPAN) || strings.Contains(s, "5555555555554444") || logging.RedactString(s) != s {
		t.Errorf("protected value still holds a card number")
	}
	if strings.Contains(s, testCode) {
		t.Errorf("protected value still holds the security code")
	}
}

func TestProtectValuePackageFunc(t *testing.T) {
	if _, p := ProtectValue(cardPayment(t)); p != ValueMasked {
		t.Errorf("ProtectValue = %s; want masked", p)
	}
}

// TestProtectValueLooseForms checks the forms dead letters used to keep in
// clear: card numbers grouped by any single non-alphanumeric separator,
// security-code members under any spelling of the name, and security codes
// in free text — in JSON (edited in place), in text that does not parse,
// and in Avro (re-encoded).
func TestProtectValueLooseForms(t *testing.T) {
	avroNote := func(ref, meta string) []byte {
		m := Metadata(meta)
		v, err := EncodeSingleObject(&InitPayout{
			Instrument: Instrument{Type: InstrumentCard, Card: &Card{Type: CardBank, BankCard: &BankCard{
				Number: "5555555555554444", ExpirationMonth: "12", ExpirationYear: "29"}}},
			Amount: 100, Currency: "RUB", Customer: &Customer{Reference: ref}, Metadata: &m,
		})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name   string
		value  []byte
		has    []string // substrings the protected value must contain
		isJSON bool     // the protected value must still parse
	}{
		{name: "json dotted pan", value: []byte(`{"number":"4111.1111.1111.1111"}`),
			has: []string{`"number":"` + testMasked + `"`}, isJSON: true},
		{name: "json slashed pan", value: []byte(`{"note":"card 4111/1111/1111/1111 ok"}`),
			has: []string{`"note":"card ` + testMasked + ` ok"`}, isJSON: true},
		{name: "json underscored pan", value: []byte(`{"note":"4111_1111_1111_1111"}`),
			has: []string{testMasked}, isJSON: true},
		{name: "json no-break-space pan", value: []byte("{\"note\":\"4111\u00a01111\u00a01111\u00a01111\"}"),
			has: []string{testMasked}, isJSON: true},
		{name: "json Security_Code member", value: []byte(`{"bank_card":{"Security_Code":"737"}}`),
			has: []string{`"Security_Code":"***"`}, isJSON: true},
		{name: "json SECURITY-CODE member", value: []byte(`{"SECURITY-CODE":"737"}`),
			has: []string{`"SECURITY-CODE":"***"`}, isJSON: true},
		{name: "json securityCode member", value: []byte(`{"securityCode":737}`),
			has: []string{`"securityCode":"***"`}, isJSON: true},
		{name: "json cvv member", value: []byte(`{"cvv":"737","amount":1}`),
			has: []string{`"cvv":"***"`, `"amount":1`}, isJSON: true},
		{name: "json CVC2 member", value: []byte(`{"CVC2":"0737"}`),
			has: []string{`"CVC2":"***"`}, isJSON: true},
		{name: "json code in free text", value: []byte(`{"note":"cvv 737 given"}`),
			has: []string{`"note":"cvv *** given"`}, isJSON: true},
		{name: "truncated json cvv member", value: []byte(`{"number":"4111.1111.1111.1111","CVV":"73`),
			has: []string{testMasked, `"CVV":"***"`}},
		{name: "truncated json securityCode number", value: []byte(`{"securityCode": 737, "x": [`),
			has: []string{`"securityCode": "***"`}},
		{name: "text slashed pan", value: []byte(`pan 4111/1111/1111/1111 cvc: 737`),
			has: []string{testMasked, "cvc: ***"}},
		{name: "avro dotted pan in a string", value: avroNote("card 4111.1111.1111.1111", `{"k":"v"}`),
			has: []string{"card " + testMasked, "555555******4444"}},
		{name: "avro code in metadata", value: avroNote("c-1", `{"Security_Code":"737","pan":"4111_1111_1111_1111"}`),
			has: []string{`"Security_Code":"***"`, testMasked}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, got := (*Decoder)(nil).ProtectValue(context.Background(), tt.value)
			if got != ValueMasked {
				t.Fatalf("protection %s; want masked", got)
			}
			assertNoCardData(t, out)
			for _, s := range []string{"4111.1111", "4111/1111", "4111_1111", "4111\u00a01111", "737"} {
				if bytes.Contains(out, []byte(s)) {
					t.Errorf("protected value still holds %q", s)
				}
			}
			for _, s := range tt.has {
				if !bytes.Contains(out, []byte(s)) {
					t.Errorf("protected value lacks %q", s)
				}
			}
			if tt.isJSON && !json.Valid(out) {
				t.Errorf("protected JSON no longer parses")
			}
		})
	}
}

func TestProtectHeader(t *testing.T) {
	tests := []struct {
		name, key, value string
		want             string
		masked           bool
	}{
		{"security code header", "X-Card-CVV", "737", "***", true},
		{"Security-Code header", "Security-Code", "0737", "***", true},
		{"dotted card", "note", "card 4111.1111.1111.1111", "card " + testMasked, true},
		{"code in text", "note", "cvc: 737", "cvc: ***", true},
		{"binary with a card", "bin", "\xff\xfe4111111111111111", "", true},
		{"trace id", "traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, masked := ProtectHeader(tt.key, []byte(tt.value))
			if string(out) != tt.want || masked != tt.masked {
				t.Errorf("ProtectHeader = %q, %v; want %q, %v", out, masked, tt.want, tt.masked)
			}
		})
	}
}

// FuzzProtectValue checks dead-letter masking on arbitrary values: it never
// panics, an original value comes back byte for byte, a withheld one empty,
// a masked JSON object still parses, and no card number that sensitive.MaskText
// would mask is left in a masked or original JSON value's strings.
func FuzzProtectValue(f *testing.F) {
	for _, s := range []string{
		`{"number":"4111.1111.1111.1111","Security_Code":"737"}`, `{"securityCode":737,"x":[1,2]}`,
		`{"note":"cvv 737 card 4111/1111/1111/1111"}`, `{"cvv":"73`, `pan 4111_1111_1111_1111`, `{"number":"\u0034111111111111111"}`,
		"\xc3\x01", "{}", `{"a":{"CVC2":{"b":[737]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, value []byte) {
		out, p := ProtectValue(value)
		switch p {
		case ValueOriginal:
			if !bytes.Equal(out, value) {
				t.Fatalf("original value changed")
			}
		case ValueWithheld:
			if len(out) != 0 {
				t.Fatalf("withheld value has %d bytes", len(out))
			}
		case ValueMasked:
			if DetectFormat(value) == FormatJSON && json.Valid(value) && !json.Valid(out) {
				t.Fatalf("masked JSON no longer parses")
			}
		}
		if p == ValueWithheld || !json.Valid(out) {
			return
		}
		var tree any
		if err := json.Unmarshal(out, &tree); err != nil {
			return
		}
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case string:
				if sensitive.ContainsCard(x) {
					t.Fatalf("protected JSON still holds a card number in a string")
				}
			case map[string]any:
				for _, e := range x {
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		walk(tree)
	})
}
