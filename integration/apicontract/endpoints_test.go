package apicontract

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/paysim"
	"github.com/paysession/paysession/internal/sensitive"
)

// recurrentToken reads the token a successful card payment issued from the
// raw payment_finished webhook (member "recurrent" of the payment).
func recurrentToken(t *testing.T, w *payapi.Webhook) string {
	t.Helper()
	var raw struct {
		Session map[string][]struct {
			Recurrent struct{ Token string } `json:"recurrent"`
		} `json:"session"`
	}
	_ = json.Unmarshal(w.Raw, &raw)
	for _, name := range []string{"acquiring_payments", "payment_list"} {
		for _, op := range raw.Session[name] {
			if op.Recurrent.Token != "" {
				return op.Recurrent.Token
			}
		}
	}
	t.Fatalf("no recurrent token in %s", w.Raw)
	return ""
}

// Row "recurring token active | recurrent/disable | token valid | is_active
// false | token cannot be used for recurring payments or payouts"; finished_at
// shows the year 2000.
func TestRowRecurrentDisable(t *testing.T) {
	e := newEnv(t, 1, nil)
	s := e.ok(e.client.InitPayment(e.ctx, payment(paysim.CardSuccess, 900)))
	e.idle()
	tok := recurrentToken(t, e.lastWebhook(s.ID, "payment_finished"))
	// Active token: a recurring payout with it works.
	e.ok(e.client.InitPayout(e.ctx, payapi.InitPayoutRequest{Instrument: payapi.TokenInstrument(tok), Amount: rub(100)}))
	rt, err := e.client.DisableRecurring(e.ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	if rt.IsActive || rt.Type != "recurrent_token" || rt.FinishedAt == nil || rt.FinishedAt.Year() != 2000 {
		t.Fatalf("disabled token: %+v", rt)
	}
	_, err = e.client.InitPayout(e.ctx, payapi.InitPayoutRequest{Instrument: payapi.TokenInstrument(tok), Amount: rub(100)})
	apiErr(t, err, "invalid_request", "payment_method.card.tokenized_card.token.inactive")
	_, err = e.client.DisableRecurring(e.ctx, "rt_unknown")
	apiErr(t, err, "repository_record_not_found", "")
}

// POST tokenize/elements and POST token/info (type card, encrypted_card
// number_hash), and a payout to the tokenized card.
func TestTokenizeAndTokenInfo(t *testing.T) {
	e := newEnv(t, 1, nil)
	res, err := e.client.TokenizeCards(e.ctx, []payapi.CardElement{{Ref: "main", Type: "card_number", CardNumber: sensitive.PAN(paysim.CardSuccess)}})
	if err != nil {
		t.Fatal(err)
	}
	got := res["main"]
	if got.Token == "" || got.MaskedCardNumber != "411111******1111" || got.CardNetwork == "" || got.CardType == "" {
		t.Fatalf("tokenize: %+v", got)
	}
	s := e.ok(e.client.InitPayout(e.ctx, payapi.InitPayoutRequest{Instrument: payapi.TokenInstrument(got.Token), Amount: rub(100)}))
	equal(t, "last4 of the token's card", onlyOp(t, *s).Instrument.Card.Last4, "1111")
	info, err := e.client.TokenInfo(e.ctx, payapi.TokenInfoRequest{Type: "card", Card: &payapi.Card{Type: payapi.CardEncrypted,
		EncryptedCard: &payapi.EncryptedCard{NumberHash: hashOf(paysim.CardSuccess)}}})
	if err != nil {
		t.Fatal(err)
	}
	if info.Last4 != "1111" || info.Brand != "visa" || info.NumberHash == "" {
		t.Fatalf("token info: %+v", info)
	}

	off := newEnv(t, 1, func(p *paysim.Project) { p.TokenizeEnabled = false })
	_, err = off.client.TokenizeCards(off.ctx, []payapi.CardElement{{Ref: "x", CardNumber: sensitive.PAN(paysim.CardSuccess)}})
	if pe := apiErr(t, err, "forbidden", ""); pe.HTTPStatus != 403 {
		t.Fatalf("status %d", pe.HTTPStatus)
	}
}

// POST token: "valid 24 hours and for one operation".
func TestPublicToken(t *testing.T) {
	e := newEnv(t, 1, nil)
	s := e.ok(e.client.CreateSession(e.ctx, payapi.CreateSessionRequest{Amount: rub(100)}))
	use := func(tok string) int {
		res, err := http.Post(e.sim.URL()+"/sandbox/widget?public_token="+url.QueryEscape(tok), "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	tok, err := e.client.PublicToken(e.ctx, payapi.PublicTokenRequest{AcquiringWidget: &payapi.AcquiringWidget{SessionID: s.ID}})
	if err != nil || tok == "" {
		t.Fatalf("public token: %q %v", tok, err)
	}
	info, err := e.client.TokenInfo(e.ctx, payapi.TokenInfoRequest{Type: "public_token", PublicToken: json.RawMessage(`{"token":"` + tok + `"}`)})
	if err != nil || !strings.Contains(string(info.Raw), `"is_active":true`) {
		t.Fatalf("info: %v %s", err, info.Raw)
	}
	equal(t, "first use", use(tok), 200)
	equal(t, "second use", use(tok), 400)
	old, err := e.client.PublicToken(e.ctx, payapi.PublicTokenRequest{TokenizeWidget: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	e.advance(24 * time.Hour)
	equal(t, "after 24h", use(old), 400)
}

// POST wallet/balance: the deposit balance moves with payouts and refunds.
func TestWalletBalanceMoves(t *testing.T) {
	e := newEnv(t, 1, nil)
	balance := func() int64 {
		ws, err := e.client.WalletBalance(e.ctx, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range ws {
			if w.Amount != nil && w.Amount.Currency == "rub" && w.ID != "" {
				return w.Amount.Value
			}
		}
		t.Fatalf("no rub wallet: %+v", ws)
		return 0
	}
	start := balance()
	e.ok(e.client.InitPayout(e.ctx, payout(paysim.CardSuccess, 10000)))
	e.idle()
	equal(t, "after payout (amount + 1% fee)", balance(), start-10100)
	s := e.ok(e.client.InitPayment(e.ctx, payment(paysim.CardSuccess, 5000)))
	e.idle()
	e.ok(e.client.Refund(e.ctx, payapi.RefundRequest{SessionID: s.ID, Amount: rub(2000)}))
	e.idle()
	equal(t, "after refund", balance(), start-12100)
}

// GET fps/banks (a GET with an empty JSON object body) and POST bankpay/push.
func TestFPSBanksAndBankPayPush(t *testing.T) {
	e := newEnv(t, 1, nil)
	banks, err := e.client.FPSBanks(e.ctx)
	if err != nil || len(banks) == 0 || banks[0].ID == "" || banks[0].EngName == "" || banks[0].RuName == "" {
		t.Fatalf("banks: %+v %v", banks, err)
	}
	s := e.ok(e.client.InitPayment(e.ctx, payment(paysim.CardSuccess, 100)))
	if err := e.client.BankPayPush(e.ctx, s.ID, "79000000000"); err != nil {
		t.Fatal(err)
	}
	apiErr(t, e.client.BankPayPush(e.ctx, "ps_404040", "79000000000"), "repository_record_not_found", "")
}

// Versioning: "methods shown only under /api/v1 exist only as v1": a v2
// client still reaches them (under /api/v1).
func TestV1OnlyMethodsWithV2Client(t *testing.T) {
	e := newEnv(t, 2, nil)
	if _, err := e.client.FPSBanks(e.ctx); err != nil {
		t.Fatal(err)
	}
}

// Instrument details: "Account and name values in webhooks are partly
// masked with asterisks"; responses carry them as sent.
func TestWebhookMasksAccountAndNames(t *testing.T) {
	versions(t, func(t *testing.T, v int) {
		e := newEnv(t, v, nil)
		acct := &payapi.Instrument{Type: payapi.InstrumentBankAccount, BankAccount: &payapi.BankAccount{SystemType: payapi.SystemRU,
			RU: &payapi.RUAccount{BIC: "044525225", Account: "40817810099910004312", FullName: "Ivan Petrov", Description: "salary"}}}
		s := e.ok(e.client.InitPayout(e.ctx, payapi.InitPayoutRequest{Instrument: acct, Amount: rub(100),
			Participants: &payapi.ParticipantDetails{Recipient: &payapi.Recipient{FullName: "Ivan Petrov"}}}))
		equal(t, "account in response", onlyOp(t, *s).Instrument.BankAccount.RU.Account, "40817810099910004312")
		e.idle()
		op := onlyOp(t, e.lastWebhook(s.ID, "payment_finished").Session)
		ru := op.Instrument.BankAccount.RU
		if !strings.Contains(ru.Account, "*") || ru.Account == "40817810099910004312" || !strings.Contains(ru.FullName, "*") ||
			!strings.Contains(op.Participants.Recipient.FullName, "*") {
			t.Fatalf("webhook not masked: %+v %+v", ru, op.Participants.Recipient)
		}
	})
}
