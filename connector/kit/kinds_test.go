package kit_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/paysession/paysession/connector/kit"
)

// commandsByKind holds one valid command of every kind, as upstream JSON.
var commandsByKind = map[kit.CommandKind]string{
	kit.KindInitPayout:       `{"instrument":{"type":"bank_account","bank_account":{"system_type":"ru","ru":{"bic":"044525225","account":"40817810099910004312","full_name":"Ivan Petrov","description":"salary","is_fast":true}}},"amount":10000,"currency":"rub","customer":{"reference":"cust-1","emails":["a@example.com"]},"metadata":{"order":42}}`,
	kit.KindInitPayment:      `{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4111111111111111","expiration_month":"12","expiration_year":"29","security_code":"123"}}},"amount":2500,"currency":"usd","customer":{"reference":"cust-1","emails":["a@example.com"]},"payment_options":{"return_url":"https://shop.example/back"}}`,
	kit.KindCreateSession:    `{"payout_instrument":{"type":"card","card":{"type":"tokenized_card","tokenized_card":{"token":"tok_1"}}},"amount":500,"currency":"rub","customer":{"reference":"cust-1","emails":["a@example.com"]}}`,
	kit.KindStartPayout:      `{"session_id":"ps_1","instrument":{"type":"bank_account","bank_account":{"system_type":"ru","ru":{"bic":"044525225","account":"40817810099910004312","full_name":"Ivan Petrov","is_fast":false}}},"amount":1,"currency":"rub"}`,
	kit.KindStartPayment:     `{"session_id":"ps_2","instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4111111111111111","expiration_month":"12","expiration_year":"29"}}},"amount":7,"currency":"eur","customer":{"reference":"cust-1","emails":["a@example.com"]}}`,
	kit.KindCapture:          `{"session_id":"ps_3","amount":100,"currency":"rub"}`,
	kit.KindRefund:           `{"session_id":"ps_4","metadata":{"order":42,"note":"A&B <ltd>"}}`,
	kit.KindConfirm:          `{"session_id":"ps_5"}`,
	kit.KindCancel:           `{"session_id":"ps_6"}`,
	kit.KindDisableRecurring: `{"token":"rt_1"}`,
	kit.KindFPSVerification:  `{"phone":"79000000000","bank_id":"100000000111","recipient":{"first_name":"Ivan","last_name":"Petrov","middle_name":"I"}}`,
	kit.KindStatusRefresh:    `{"session_id":"ps_7"}`,
	kit.KindBankPayPush:      `{"session_id":"ps_8","phone":"79000000000"}`,
}

// TestEveryKindInEveryFormat: a command of each kind read from JSON, encoded
// in each format and read back as the connector reads it, is unchanged.
func TestEveryKindInEveryFormat(t *testing.T) {
	ctx := context.Background()
	reg := fakeRegistry(t)
	dec, err := kit.NewDecoder(kit.DecoderConfig{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	if len(commandsByKind) != len(kit.Kinds()) {
		t.Fatalf("%d sample commands for %d kinds", len(commandsByKind), len(kit.Kinds()))
	}
	for _, f := range []kit.Format{kit.FormatJSON, kit.FormatSingleObject, kit.FormatConfluent} {
		enc, err := kit.NewEncoder(kit.EncoderConfig{Format: f, Registry: reg})
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range kit.Kinds() {
			t.Run(string(f)+"/"+string(kind), func(t *testing.T) {
				want, err := kit.ParseJSON(kind, []byte(commandsByKind[kind]))
				if err != nil {
					t.Fatal(err)
				}
				rec, err := enc.Record(ctx, "key-"+string(kind), want)
				if err != nil {
					t.Fatal(err)
				}
				var got kit.Command
				if f == kit.FormatJSON {
					got, err = kit.ParseJSON(kind, rec.Value)
				} else {
					var r kit.Record
					r, err = dec.DecodeAs(ctx, kind.SchemaName(), rec.Value)
					got, _ = r.(kit.Command)
				}
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("read back %#v\nwant %#v", got, want)
				}
			})
		}
	}
}
