package pipeline

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/sensitive"
	"github.com/paysession/paysession/internal/signing"
)

func TestMapping(t *testing.T) {
	amt, cur := int64(500), "rub"
	meta := codec.Metadata(`{"order":"o-1"}`)
	first, last := "Ann", "Lee"
	card := codec.Instrument{Type: "card", Card: &codec.Card{Type: "bank_card", BankCard: &codec.BankCard{
		Number: sensitive.PAN("4111111111111111"), ExpirationMonth: "12", ExpirationYear: "29"}}}
	apiCard := &payapi.Instrument{Type: "card", Card: &payapi.Card{Type: "bank_card", BankCard: &payapi.BankCard{
		Number: sensitive.PAN("4111111111111111"), ExpirationMonth: "12", ExpirationYear: "29"}}}
	ru := codec.Instrument{Type: "bank_account", BankAccount: &codec.BankAccount{SystemType: "ru",
		RU: &codec.RUAccount{BIC: "044525225", Account: "40817810000000000001", FullName: "A B"}}}
	apiRU := &payapi.Instrument{Type: "bank_account", BankAccount: &payapi.BankAccount{SystemType: "ru",
		RU: &payapi.RUAccount{BIC: "044525225", Account: "40817810000000000001", FullName: "A B"}}}
	tests := []struct {
		name    string
		cmd     codec.Command
		want    fakeCall
		session string
	}{
		{"init payout", &codec.InitPayout{Instrument: ru, Amount: amt, Currency: cur, Metadata: &meta},
			fakeCall{"session/init/payout", "", payapi.InitPayoutRequest{Instrument: apiRU,
				Amount: &payapi.Amount{Value: 500, Currency: "rub"}, Metadata: meta.Raw()}}, ""},
		{"init payment", &codec.InitPayment{Instrument: card, Amount: amt, Currency: cur,
			Customer:     codec.Customer{Reference: "c1", Emails: []string{"a@b.c"}},
			Participants: &codec.Participants{Sender: &codec.Sender{FirstName: &first, LastName: &last}}},
			fakeCall{"session/init/payment", "", payapi.InitPaymentRequest{Instrument: apiCard,
				Amount: &payapi.Amount{Value: 500, Currency: "rub"}, Customer: &payapi.Customer{Reference: "c1",
					Contacts: []payapi.Contact{{Email: "a@b.c"}}},
				Participants: &payapi.ParticipantDetails{Sender: &payapi.Sender{FirstName: "Ann", LastName: "Lee"}}}}, ""},
		{"create session", &codec.CreateSession{PaymentInstrument: &card, Amount: &amt, Currency: &cur},
			fakeCall{"session/create", "", payapi.CreateSessionRequest{PaymentInstrument: apiCard,
				Amount: &payapi.Amount{Value: 500, Currency: "rub"}}}, ""},
		{"start payout", &codec.StartPayout{SessionID: "ps_1", Instrument: &ru},
			fakeCall{"session/start/payout", "ps_1", payapi.StartPayoutRequest{SessionID: "ps_1", Instrument: apiRU}}, "ps_1"},
		{"start payment", &codec.StartPayment{SessionID: "ps_1"},
			fakeCall{"session/start/payment", "ps_1", payapi.StartPaymentRequest{SessionID: "ps_1"}}, "ps_1"},
		{"capture full", &codec.Capture{SessionID: "ps_2"},
			fakeCall{"session/capture", "ps_2", payapi.CaptureRequest{SessionID: "ps_2"}}, "ps_2"},
		{"capture part", &codec.Capture{SessionID: "ps_2", Amount: &amt, Currency: &cur},
			fakeCall{"session/capture", "ps_2", payapi.CaptureRequest{SessionID: "ps_2", Amount: &payapi.Amount{Value: 500, Currency: "rub"}}}, "ps_2"},
		{"refund", &codec.Refund{SessionID: "ps_3", Metadata: &meta},
			fakeCall{"session/refund", "ps_3", payapi.RefundRequest{SessionID: "ps_3", Metadata: meta.Raw()}}, "ps_3"},
		{"confirm", &codec.Confirm{SessionID: "ps_4"}, fakeCall{"session/confirm", "ps_4", "ps_4"}, "ps_4"},
		{"cancel", &codec.Cancel{SessionID: "ps_5"}, fakeCall{"session/cancel", "ps_5", "ps_5"}, "ps_5"},
		{"status refresh", &codec.StatusRefresh{SessionID: "ps_6"}, fakeCall{"session/status", "ps_6", "ps_6"}, "ps_6"},
		{"fps", &codec.FPSVerification{Phone: "79000000000", BankID: "b1", Recipient: codec.Recipient{FirstName: &first}},
			fakeCall{"fps/customer_verification", "", payapi.FPSVerificationRequest{Phone: "79000000000", BankID: "b1",
				Recipient: payapi.Recipient{FirstName: "Ann"}}}, ""},
		{"disable recurring", &codec.DisableRecurring{Token: "tok"}, fakeCall{"recurrent/disable", "", "tok"}, ""},
		{"bankpay push", &codec.BankPayPush{SessionID: "ps_7", Phone: "79000000000"},
			fakeCall{"bankpay/push", "ps_7", "79000000000"}, "ps_7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, err := toCommand(tt.cmd)
			if err != nil {
				t.Fatal(err)
			}
			if cmd.SessionID != tt.session || cmd.Kind != string(tt.cmd.Kind()) || cmd.Endpoint != tt.want.Endpoint {
				t.Fatalf("command = %s/%s, want %s/%s", cmd.Kind, cmd.SessionID, tt.cmd.Kind(), tt.session)
			}
			api := &fakeAPI{}
			if _, err := cmd.send(context.Background(), api, payapi.WithIdempotencyKey("key-1")); err != nil {
				t.Fatal(err)
			}
			if len(api.calls) != 1 || !reflect.DeepEqual(api.calls[0], tt.want) {
				t.Fatalf("call = %#v\nwant %#v", api.calls, tt.want)
			}
		})
	}
}

func TestMappingCoversEveryKind(t *testing.T) {
	for _, k := range codec.Kinds() {
		cmd, err := toCommand(k.New())
		if err != nil {
			t.Errorf("%s: %v", k, err)
			continue
		}
		if _, err := cmd.send(context.Background(), &fakeAPI{}); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
}

// TestMappingRoutesEachCommand checks on the wire that a command's project
// and submerchant reach the request headers (status refresh included, which
// drops the idempotency key), that a command naming neither keeps the
// client's defaults, and that an unknown project fails unsent.
func TestMappingRoutesEachCommand(t *testing.T) {
	type seen struct{ project, submerchant, key string }
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, seen{r.Header.Get(payapi.HeaderProject), r.Header.Get(payapi.HeaderSubmerchant), r.Header.Get(payapi.HeaderIdempotency)})
		mu.Unlock()
		_, _ = io.WriteString(w, `{"status":"ok","session":{"id":"ps_1","status":"in_progress","created_at":"2026-11-23T10:00:00.000000Z","updated_at":"2026-11-23T10:00:00.000000Z"}}`)
	}))
	t.Cleanup(srv.Close)
	k, err := signing.GenerateKey(2048)
	if err != nil {
		t.Fatal(err)
	}
	signer := signing.NewRSASigner(k, signing.PKCS1v15)
	client, err := payapi.New(payapi.Config{BaseURL: srv.URL, Project: "main", Submerchant: "default-payer", Signer: signer,
		Projects: []payapi.Project{{ID: "shop-2", Signer: signer}}})
	if err != nil {
		t.Fatal(err)
	}
	p2, payer := "shop-2", "payer-9"
	tests := []struct {
		name string
		cmd  codec.Command
		want seen
	}{
		{"defaults", &codec.Capture{SessionID: "ps_1"}, seen{"main", "default-payer", "key-0001"}},
		{"project and submerchant", &codec.Capture{SessionID: "ps_1", Project: &p2, Submerchant: &payer}, seen{"shop-2", "payer-9", "key-0001"}},
		{"status refresh under its project, without the key", &codec.StatusRefresh{SessionID: "ps_1", Project: &p2}, seen{"shop-2", "default-payer", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, err := toCommand(tt.cmd)
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			got = nil
			mu.Unlock()
			if _, err := cmd.send(context.Background(), client, payapi.WithIdempotencyKey("key-0001")); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != 1 || got[0] != tt.want {
				t.Fatalf("requests %+v, want one %+v", got, tt.want)
			}
		})
	}
	unknown := "shop-3"
	cmd, err := toCommand(&codec.Confirm{SessionID: "ps_1", Project: &unknown})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cmd.send(context.Background(), client, payapi.WithIdempotencyKey("key-0002"))
	var ae *payapi.Error
	if !errors.As(err, &ae) || ae.Code != payapi.CodeUnknownProject || ae.Sent {
		t.Fatalf("unknown project: %v", err)
	}
}

// TestMappingKeepsTheDisabledToken: a disable_recurring command keeps the
// token state its call answered, for its result.
func TestMappingKeepsTheDisabledToken(t *testing.T) {
	cmd, err := toCommand(&codec.DisableRecurring{Token: "rt_9"})
	if err != nil {
		t.Fatal(err)
	}
	ans, err := cmd.send(context.Background(), tokenAPI{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ans.Token; got == nil || got.Token != "rt_9" || got.IsActive {
		t.Fatalf("kept token %+v", got)
	}
}

// tokenAPI answers recurrent/disable with the token disabled.
type tokenAPI struct{ API }

func (tokenAPI) DisableRecurring(_ context.Context, token string, _ ...payapi.CallOption) (*payapi.RecurringToken, error) {
	return &payapi.RecurringToken{Token: token, IsActive: false}, nil
}
