package pipeline

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/sensitive"
)

// TestRequestIsAValue: the request built for a command is a plain value,
// compared and printed here before anything is sent; building it again
// gives an equal value; printed, it shows card data masked.
func TestRequestIsAValue(t *testing.T) {
	amt, cur, shop, payer := int64(500), "rub", "shop-2", "payer-9"
	sec := sensitive.SecurityCode("123")
	card := codec.Instrument{Type: "card", Card: &codec.Card{Type: "bank_card", BankCard: &codec.BankCard{
		Number: sensitive.PAN("4111111111111111"), ExpirationMonth: "12", ExpirationYear: "29", SecurityCode: &sec}}}
	tests := []struct {
		name    string
		cmd     codec.Command
		want    request
		printed string
	}{
		{"capture part", &codec.Capture{SessionID: "ps_2", Amount: &amt, Currency: &cur},
			captureRequest{SessionID: "ps_2", Amount: &payapi.Amount{Value: 500, Currency: "rub"}},
			"session/capture captureRequest{SessionID:ps_2 Amount:&Amount{Value:500 Currency:rub}}"},
		{"init payment by card", &codec.InitPayment{Instrument: card, Amount: amt, Currency: cur, Customer: codec.Customer{Reference: "c1"}},
			initPaymentRequest{Instrument: &payapi.Instrument{Type: "card", Card: &payapi.Card{Type: "bank_card", BankCard: &payapi.BankCard{
				Number: "4111111111111111", ExpirationMonth: "12", ExpirationYear: "29", SecurityCode: "123"}}},
				Amount: &payapi.Amount{Value: 500, Currency: "rub"}, Customer: &payapi.Customer{Reference: "c1"}},
			"session/init/payment initPaymentRequest{Instrument:&Instrument{Type:card Card:&Card{Type:bank_card " +
				"BankCard:&BankCard{Number:411111******1111 ExpirationMonth:12 ExpirationYear:29 SecurityCode:[redacted]}}} " +
				"Amount:&Amount{Value:500 Currency:rub} Customer:&Customer{Reference:c1}}"},
		{"confirm", &codec.Confirm{SessionID: "ps_4", Project: &shop}, confirmRequest{SessionID: "ps_4"},
			"session/confirm confirmRequest{SessionID:ps_4}"},
		{"status refresh keeps its route", &codec.StatusRefresh{SessionID: "ps_6", Project: &shop, Submerchant: &payer},
			statusRequest{SessionID: "ps_6", Route: codec.Route{Project: "shop-2", Submerchant: "payer-9"}},
			"session/status statusRequest{SessionID:ps_6 Route:Route{Project:shop-2 Submerchant:payer-9}}"},
		{"disable recurring", &codec.DisableRecurring{Token: "rt_9"}, disableRecurringRequest{Token: "rt_9"},
			"recurrent/disable disableRecurringRequest{Token:rt_9}"},
		{"bankpay push", &codec.BankPayPush{SessionID: "ps_7", Phone: "79000000000"},
			bankPayPushRequest{SessionID: "ps_7", Phone: "79000000000"},
			"bankpay/push bankPayPushRequest{SessionID:ps_7 Phone:79000000000}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, err := toCommand(tt.cmd)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cmd.request, tt.want) {
				t.Fatalf("request %s\nwant    %s", show(cmd.request), show(tt.want))
			}
			again, err := toCommand(tt.cmd)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again.request, cmd.request) {
				t.Fatalf("built again: %s\nfirst:       %s", show(again.request), show(cmd.request))
			}
			if got := cmd.Endpoint + " " + show(cmd.request); got != tt.printed {
				t.Fatalf("printed %s\nwant    %s", got, tt.printed)
			}
		})
	}
}

// show prints a request value with its pointers followed and its zero
// fields left out; leaves print with fmt, so card data prints masked.
func show(v any) string { return showValue(reflect.ValueOf(v)) }

func showValue(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "nil"
		}
		if v.Kind() == reflect.Pointer {
			return "&" + showValue(v.Elem())
		}
		return showValue(v.Elem())
	case reflect.Struct:
		var fields []string
		for i := range v.NumField() {
			if f := v.Field(i); !f.IsZero() {
				fields = append(fields, v.Type().Field(i).Name+":"+showValue(f))
			}
		}
		return v.Type().Name() + "{" + strings.Join(fields, " ") + "}"
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return string(v.Bytes())
		}
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = showValue(v.Index(i))
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprint(v.Interface())
}
