package sessionstate

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/sensitive"
)

func TestFromAPI(t *testing.T) {
	created := t0
	updated := t0.Add(time.Minute)
	finished := t0.Add(2 * time.Minute)
	observed := t0.Add(3 * time.Minute)
	tests := []struct {
		name  string
		in    payapi.Session
		check func(t *testing.T, got *codec.SessionState)
	}{
		{
			name: "card payout masked to bin last4 brand",
			in: payapi.Session{ID: "ps_1", Status: "in_progress", CreatedAt: created, UpdatedAt: updated, NextAction: "confirm",
				Payouts: []payapi.Operation{{ID: "po_1", Status: "pending", CreatedAt: created,
					Amount: &payapi.Amount{Value: 1500000, Currency: "rub"},
					Instrument: &payapi.Instrument{Type: "card", Card: &payapi.Card{Type: "bank_card", Brand: "visa",
						BankCard: &payapi.BankCard{Number: sensitive.PAN("4111111111111111"), ExpirationMonth: "12", ExpirationYear: "29",
							SecurityCode: sensitive.SecurityCode("123")}}}}}},
			check: func(t *testing.T, got *codec.SessionState) {
				op := got.Session.Operations[0]
				eq(t, "kind", string(op.Kind), "payout")
				eq(t, "bin", deref(op.Instrument.CardBIN), "411111")
				eq(t, "last4", deref(op.Instrument.CardLast4), "1111")
				eq(t, "brand", deref(op.Instrument.CardBrand), "visa")
				eq(t, "next_action", deref(got.Session.NextAction), "confirm")
				eq(t, "amount", *op.Amount, int64(1500000))
			},
		},
		{
			name: "output-only card members win, long bin refused",
			in: payapi.Session{ID: "ps_2", Status: "accepted", UpdatedAt: updated,
				Payments: []payapi.Operation{{ID: "pm_1", Status: "succeeded", FinishedAt: &finished,
					TransactionInfo: &payapi.TransactionInfo{RRN: "123456789012", AuthCode: "A1B2"},
					Fees:            &payapi.Amounts{MerchantFee: &payapi.Amount{Value: 30, Currency: "RUB"}},
					Instrument:      &payapi.Instrument{Type: "card", Card: &payapi.Card{Type: "tokenized_card", BIN: "4000000000000002", Last4: "0002", Brand: "visa"}}}}},
			check: func(t *testing.T, got *codec.SessionState) {
				op := got.Session.Operations[0]
				eq(t, "kind", string(op.Kind), "payment")
				if op.Instrument.CardBIN != nil {
					t.Errorf("bin = %q, want nil for a 16-digit value", *op.Instrument.CardBIN)
				}
				eq(t, "rrn", deref(op.RRN), "123456789012")
				eq(t, "fee", *op.FeeAmount, int64(30))
				eq(t, "finished", op.FinishedAt.Equal(finished), true)
			},
		},
		{
			name: "ru account masked, fps bank id kept",
			in: payapi.Session{ID: "ps_3", Status: "in_progress", Payouts: []payapi.Operation{
				{ID: "po_1", Status: "in_progress", Instrument: &payapi.Instrument{Type: "bank_account", BankAccount: &payapi.BankAccount{
					SystemType: "ru", RU: &payapi.RUAccount{BIC: "044525225", Account: "40817810099910004312", FullName: "Ivan Ivanov"}}}},
				{ID: "po_2", Status: "succeeded", Instrument: &payapi.Instrument{Type: "bank_account", BankAccount: &payapi.BankAccount{
					SystemType: "faster_payment_system_verification", FPS: &payapi.FPSVerification{Phone: "79000000000", BankID: "100000000111"}}}},
			}},
			check: func(t *testing.T, got *codec.SessionState) {
				eq(t, "account", deref(got.Session.Operations[0].Instrument.AccountMasked), "****************4312")
				eq(t, "bank id", deref(got.Session.Operations[1].Instrument.BankID), "100000000111")
			},
		},
		{
			name: "refunds, metadata, redirect, customer reference",
			in: payapi.Session{ID: "ps_4", Status: "accepted", Payments: []payapi.Operation{{ID: "pm_1", Status: "succeeded",
				Customer:            &payapi.Customer{Reference: "cust-7", Contacts: []payapi.Contact{{Email: "a@example.com"}}},
				Metadata:            json.RawMessage(`{ "order": 42 }`),
				CustomerInteraction: &payapi.CustomerInteraction{Type: "redirect", Redirect: &payapi.Redirect{URL: "https://acs.example/3ds"}},
				Refunds:             []payapi.Refund{{ID: "rf_1", Status: "accepted", IsChargeback: true, Amount: &payapi.Amount{Value: 100, Currency: "rub"}}}}}},
			check: func(t *testing.T, got *codec.SessionState) {
				op := got.Session.Operations[0]
				eq(t, "customer", deref(op.CustomerReference), "cust-7")
				eq(t, "metadata", string(*op.Metadata), `{"order":42}`)
				eq(t, "redirect", deref(op.RedirectURL), "https://acs.example/3ds")
				eq(t, "chargeback", op.Refunds[0].IsChargeback, true)
				eq(t, "refund amount", *op.Refunds[0].Amount, int64(100))
			},
		},
		{
			name: "empty session has no operations and nil times",
			in:   payapi.Session{ID: "ps_5", Status: "created"},
			check: func(t *testing.T, got *codec.SessionState) {
				eq(t, "ops", len(got.Session.Operations), 0)
				eq(t, "created nil", got.Session.CreatedAt == nil, true)
				eq(t, "next_action nil", got.Session.NextAction == nil, true)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := FromAPI(&tc.in, string(codec.SourceWebhook), observed, 2)
			eq(t, "id", got.Session.ID, tc.in.ID)
			eq(t, "source", got.Source, codec.SourceWebhook)
			eq(t, "observed", got.ObservedAt, observed)
			eq(t, "version", got.APIVersion, int32(2))
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			for _, secret := range []string{"4111111111111111", "4000000000000002", "123\"", "40817810099910004312", "Ivanov", "a@example.com", "79000000000"} {
				if strings.Contains(string(b), secret) {
					t.Errorf("snapshot leaks %q: %s", secret, b)
				}
			}
			tc.check(t, got)
		})
	}
}

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestFromAPICarriesWhatDownstreamNeeds covers issue 15: the whole 3-D
// Secure redirect (a POST with form parameters), each refund's
// transaction info, the recurring token of a payment, and a fee currency in
// the same lower case as the amount's.
func TestFromAPICarriesWhatDownstreamNeeds(t *testing.T) {
	created, finished := t0, t0.Add(time.Minute)
	in := payapi.Session{ID: "ps_9", Status: "in_progress", Payments: []payapi.Operation{{ID: "pm_9", Status: "pending",
		Fees: &payapi.Amounts{MerchantFee: &payapi.Amount{Value: 30, Currency: "RUB"}},
		CustomerInteraction: &payapi.CustomerInteraction{Type: "redirect", Redirect: &payapi.Redirect{
			URL: "https://acs.example/pareq", BaseURL: "https://acs.example/pareq", Method: "POST",
			QS:     map[string]string{"lang": "en"},
			Params: map[string]string{"PaReq": "eJxVUt1ugjAU", "MD": "pm_9", "TermUrl": "https://pay.example/term", "echo": "card 4111111111111111"}}},
		RecurringToken: &payapi.RecurringToken{Token: "rt_1", IsActive: true, CreatedAt: created, FinishedAt: &finished, Type: "recurrent_token"},
		Refunds: []payapi.Refund{{ID: "rf_1", Status: "accepted", CreatedAt: created, FinishedAt: &finished,
			TransactionInfo: &payapi.TransactionInfo{RRN: "000123456789", AuthCode: "A1B2C3"}}}}}}
	got := FromAPI(&in, "webhook", t0, 1).Session.Operations[0]

	r := got.Redirect
	if r == nil {
		t.Fatal("no redirect")
	}
	eq(t, "method", deref(r.Method), "POST")
	eq(t, "base_url", deref(r.BaseURL), "https://acs.example/pareq")
	eq(t, "url", deref(r.URL), "https://acs.example/pareq")
	eq(t, "qs", r.QS["lang"], "en")
	eq(t, "PaReq", r.Params["PaReq"], "eJxVUt1ugjAU")
	eq(t, "MD", r.Params["MD"], "pm_9")
	eq(t, "card number in a parameter masked", strings.Contains(r.Params["echo"], "4111111111111111"), false)
	eq(t, "redirect_url kept", deref(got.RedirectURL), "https://acs.example/pareq")

	rf := got.Refunds[0]
	eq(t, "refund rrn", deref(rf.RRN), "000123456789")
	eq(t, "refund auth_code", deref(rf.AuthCode), "A1B2C3")
	eq(t, "refund finished", rf.FinishedAt.Equal(finished), true)

	rt := got.RecurringToken
	if rt == nil {
		t.Fatal("no recurring token")
	}
	eq(t, "token", rt.Token, "rt_1")
	eq(t, "active", rt.IsActive, true)
	eq(t, "token created", rt.CreatedAt.Equal(created), true)
	eq(t, "token finished", rt.FinishedAt.Equal(finished), true)

	eq(t, "fee currency", deref(got.FeeCurrency), "rub")
}

// TestFromAPIRedirectWithoutParameters keeps a GET redirect's maps empty,
// not nil, so that the Avro encoding has them.
func TestFromAPIRedirectWithoutParameters(t *testing.T) {
	in := payapi.Session{ID: "ps_1", Status: "in_progress", Payments: []payapi.Operation{{ID: "pm_1", Status: "pending",
		CustomerInteraction: &payapi.CustomerInteraction{Type: "redirect", Redirect: &payapi.Redirect{URL: "https://acs.example/x?a=1", Method: "GET"}}}}}
	st := FromAPI(&in, "poll", t0, 2)
	r := st.Session.Operations[0].Redirect
	if r == nil || r.QS == nil || r.Params == nil {
		t.Fatalf("redirect %+v", r)
	}
	if _, err := codec.MarshalAvro(st); err != nil {
		t.Fatal(err)
	}
}
