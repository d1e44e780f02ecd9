package codec

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/paysession/paysession/internal/sensitive"
)

// TestValidateRouteAndPayoutExpiry covers what issue 15 added to commands:
// a project and a submerchant per command (header values, and the spec's
// submerchant metadata rule), and a payout card given by its number alone.
func TestValidateRouteAndPayoutExpiry(t *testing.T) {
	numberOnly := Instrument{Type: InstrumentCard, Card: &Card{Type: CardBank, BankCard: &BankCard{Number: sensitive.PAN("4111111111111111")}}}
	site := Metadata(`{"merchant":"","submerchant":"https://shop.example"}`)
	tests := []struct {
		name string
		cmd  Command
		want []string
	}{
		{"payout by card number alone", &InitPayout{Instrument: numberOnly, Amount: 5, Currency: "rub"}, nil},
		{"start payout by card number alone", &StartPayout{SessionID: "ps_1", Instrument: &numberOnly}, nil},
		{"create session payout by number, payment needs expiry", &CreateSession{PayoutInstrument: &numberOnly, PaymentInstrument: &numberOnly},
			[]string{"payment_instrument.card.bank_card.expiration_month/format", "payment_instrument.card.bank_card.expiration_year/format"}},
		{"payout with half an expiry", &InitPayout{Instrument: Instrument{Type: InstrumentCard, Card: &Card{Type: CardBank, BankCard: &BankCard{Number: "4111111111111111", ExpirationMonth: "12"}}}, Amount: 5, Currency: "rub"},
			[]string{"instrument.card.bank_card.expiration_year/format"}},
		{"payment needs the expiry", &InitPayment{Instrument: numberOnly, Amount: 5, Currency: "rub", Customer: Customer{Reference: "c"}},
			[]string{"instrument.card.bank_card.expiration_month/format", "instrument.card.bank_card.expiration_year/format"}},
		{"project named", &Capture{SessionID: "ps_1", Project: ptr("shop-2")}, nil},
		{"blank project", &Capture{SessionID: "ps_1", Project: ptr(" ")}, []string{"project/required"}},
		{"project with a newline", &Confirm{SessionID: "ps_1", Project: ptr("a\nb")}, []string{"project/format"}},
		{"submerchant payment with the metadata rule", &InitPayment{Instrument: cardInstrument("4111111111111111"), Amount: 5, Currency: "rub",
			Customer: Customer{Reference: "c"}, Submerchant: ptr("legal-entity-7"), Metadata: &site}, nil},
		{"submerchant payment without metadata", &InitPayment{Instrument: cardInstrument("4111111111111111"), Amount: 5, Currency: "rub",
			Customer: Customer{Reference: "c"}, Submerchant: ptr("legal-entity-7")}, []string{"metadata/required"}},
		{"submerchant metadata not an object", &InitPayout{Instrument: numberOnly, Amount: 5, Currency: "rub",
			Submerchant: ptr("le-7"), Metadata: ptr(Metadata(`["x"]`))}, []string{"metadata/format"}},
		{"submerchant metadata with a merchant and no site", &StartPayment{SessionID: "ps_1", Submerchant: ptr("le-7"),
			Metadata: ptr(Metadata(`{"merchant":"m","submerchant":"shop"}`))}, []string{"metadata.submerchant/format", "metadata.merchant/format"}},
		{"submerchant metadata with a null merchant", &CreateSession{Submerchant: ptr("le-7"),
			Metadata: ptr(Metadata(`{"merchant":null,"submerchant":"http://shop.example/pay"}`))}, nil},
		{"submerchant refund keeps any metadata", &Refund{SessionID: "ps_1", Submerchant: ptr("le-7"), Metadata: ptr(Metadata(`42`))}, nil},
		{"blank submerchant", &Refund{SessionID: "ps_1", Submerchant: ptr("")}, []string{"submerchant/required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fieldsOf(tt.cmd.Validate()); !slices.Equal(got, tt.want) {
				t.Fatalf("problems %v, want %v", got, tt.want)
			}
		})
	}
}

// TestRouteOfEveryCommand checks that every command kind carries a project
// and a submerchant in JSON and in Avro, and reports them as its Route.
func TestRouteOfEveryCommand(t *testing.T) {
	d, err := NewDecoder(DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	want := Route{Project: "shop-2", Submerchant: "le-7"}
	for kind, cmd := range sampleCommands() {
		if r := cmd.Route(); r != (Route{}) {
			t.Errorf("%s: route %+v without project or submerchant", kind, r)
		}
		doc, err := json.Marshal(cmd)
		if err != nil {
			t.Fatal(err)
		}
		doc = append(doc[:len(doc)-1], []byte(`,"project":"shop-2","submerchant":"le-7"}`)...)
		got, err := d.Decode(context.Background(), kind.DefaultTopic(), kind, doc)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if got.Route() != want {
			t.Errorf("%s from JSON: route %+v, want %+v", kind, got.Route(), want)
		}
		soe, err := EncodeSingleObject(got)
		if err != nil {
			t.Fatal(err)
		}
		back, err := d.Decode(context.Background(), kind.DefaultTopic(), kind, soe)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if back.Route() != want {
			t.Errorf("%s from Avro: route %+v, want %+v", kind, back.Route(), want)
		}
	}
}
