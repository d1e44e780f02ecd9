package codec

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeJSONRoundTrip(t *testing.T) {
	d, _ := NewDecoder(DecoderConfig{})
	for kind, cmd := range sampleCommands() {
		t.Run(string(kind), func(t *testing.T) {
			b, err := json.Marshal(cmd)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.Decode(context.Background(), kind.DefaultTopic(), kind, b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, cmd) {
				t.Fatalf("round trip:\n got %#v\nwant %#v", got, cmd)
			}
		})
	}
}

func TestDecodeJSONErrors(t *testing.T) {
	const pan = "4111111111111111"
	tests := []struct {
		name      string
		kind      CommandKind
		value     string
		wantField string
		wantIn    string
	}{
		{"unknown top-level field", KindCapture, `{"session_id":"ps_1","amout":5}`, "amout", "unknown field"},
		{"unknown nested field", KindInitPayout, `{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"` + pan + `","cvv":"1"}}},"amount":1,"currency":"rub"}`, "instrument.card.bank_card.cvv", "unknown field"},
		{"wrong type names path", KindInitPayout, `{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":4111111111111111}}}}`, "instrument.card.bank_card.number", "got JSON number, want string"},
		{"wrong amount type", KindCapture, `{"session_id":"ps_1","amount":"10"}`, "amount", "want integer"},
		{"fractional amount", KindCapture, `{"session_id":"ps_1","amount":10.5}`, "amount", "want integer"},
		// An amount is an integer literal: forms that only parse as a
		// float would be read as a guess.
		{"amount with an exponent", KindCapture, `{"session_id":"ps_1","amount":1e3}`, "amount", "want integer"},
		{"amount with a zero fraction", KindCapture, `{"session_id":"ps_1","amount":100.0}`, "amount", "want integer"},
		{"amount beyond int64", KindCapture, `{"session_id":"ps_1","amount":9223372036854775808}`, "amount", "want integer"},
		{"syntax error", KindConfirm, `{"session_id":"ps_1",}`, "", "invalid JSON at offset"},
		{"truncated", KindConfirm, `{"session_id":"ps_1"`, "", "truncated JSON"},
		{"trailing data", KindConfirm, `{"session_id":"ps_1"} {}`, "", "trailing data"},
		{"not an object", KindConfirm, `{"session_id":["ps_1"]}`, "session_id", "wrong type"},
		// A member name is the producer's text: one that cannot stand in a
		// published field path is "*" there (issue 37).
		{"card number as field name", KindConfirm, `{"` + pan + `":1}`, "*", "unknown field"},
		{"security code as field name", KindConfirm, `{"cvv 737":1}`, "*", "unknown field"},
		{"card number in syntax error", KindInitPayout, `{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"` + pan + `"x}}}}`, "", "invalid JSON"},
	}
	d, _ := NewDecoder(DecoderConfig{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := d.Decode(context.Background(), tt.kind.DefaultTopic(), tt.kind, []byte(tt.value))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v (%T), want *DecodeError", err, err)
			}
			if de.Format != FormatJSON || de.Field != tt.wantField {
				t.Errorf("format %q field %q, want json %q", de.Format, de.Field, tt.wantField)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantIn) {
				t.Errorf("message %q does not contain %q", msg, tt.wantIn)
			}
			if tt.wantField != "" && tt.wantField != pan && !strings.Contains(msg, tt.wantField) {
				t.Errorf("message %q does not name field %q", msg, tt.wantField)
			}
			if strings.Contains(msg, pan) || strings.Contains(msg, "737") || strings.Contains(de.Field, pan) {
				t.Errorf("message leaks the card number: %q", msg)
			}
		})
	}
}

func TestDecodeJSONSensitiveAndMetadata(t *testing.T) {
	d, _ := NewDecoder(DecoderConfig{})
	value := `{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4111111111111111","expiration_month":"01","expiration_year":"30","security_code":"999"}}},
	  "amount":100,"currency":"rub","metadata":{"order": [1, 2]}}`
	cmd, err := d.Decode(context.Background(), KindInitPayout.DefaultTopic(), KindInitPayout, []byte(value))
	if err != nil {
		t.Fatal(err)
	}
	p := cmd.(*InitPayout)
	bc := p.Instrument.Card.BankCard
	if bc.Number.Reveal() != "4111111111111111" || bc.SecurityCode.Reveal() != "999" {
		t.Fatalf("sensitive fields not decoded: %v %v", bc.Number, bc.SecurityCode)
	}
	if string(*p.Metadata) != `{"order":[1,2]}` {
		t.Fatalf("metadata %q", *p.Metadata)
	}
	if err := cmd.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestDetectFormat(t *testing.T) {
	tests := []struct {
		in   []byte
		want Format
	}{
		{[]byte{0, 0, 0, 0, 1}, FormatConfluent},
		{[]byte{0xC3, 0x01, 1}, FormatSingleObject},
		{[]byte(" \n{}"), FormatJSON},
		{[]byte("[]"), FormatUnknown},
		{[]byte{0xC3}, FormatUnknown},
		{nil, FormatUnknown},
	}
	for _, tt := range tests {
		if got := DetectFormat(tt.in); got != tt.want {
			t.Errorf("DetectFormat(%x) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
