package apicontract

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/paysim"
	"github.com/paysession/paysession/internal/sensitive"
	"github.com/paysession/paysession/internal/signing"
)

// Contract tests of issue 15: several projects with their own keys, the
// submerchant header and metadata rule, recurring tokens and their
// projects, the POST 3-D Secure redirect, payouts by card number alone,
// and the sandbox's rules the client reads as Field.Rule.

// twoProjects is one sandbox with projects "shop" and "shop2", each with its
// own key, and one client that signs for both ("shop" the default).
func twoProjects(t *testing.T, version int) *env {
	t.Helper()
	pk, sk := keys(t)
	other, err := signing.GenerateKey(2048)
	if err != nil {
		t.Fatal(err)
	}
	h := &hooks{verifier: signing.NewRSAVerifier(signing.PKCS1v15, &sk.PublicKey)}
	hookSrv := httptest.NewServer(h)
	t.Cleanup(hookSrv.Close)
	sim, err := paysim.New(paysim.Config{Clock: paysim.NewFakeClock(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)),
		Projects:   []paysim.Project{paysim.DevProject("shop", &pk.PublicKey, hookSrv.URL), paysim.DevProject("shop2", &other.PublicKey, hookSrv.URL)},
		ServiceKey: sk, ProcessingDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	client, err := payapi.New(payapi.Config{BaseURL: sim.URL(), Version: version, Project: "shop",
		Signer:   signing.NewRSASigner(pk, signing.PKCS1v15),
		Projects: []payapi.Project{{ID: "shop2", Signer: signing.NewRSASigner(other, signing.PKCS1v15)}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return &env{t: t, sim: sim, client: client, hooks: h, ctx: ctx}
}

func TestProjectsEachSignWithTheirKey(t *testing.T) {
	versions(t, func(t *testing.T, v int) {
		e := twoProjects(t, v)
		a := e.ok(e.client.InitPayout(e.ctx, payout(paysim.CardSuccess, 100), payapi.WithIdempotencyKey("proj-key-1")))
		b := e.ok(e.client.InitPayout(e.ctx, payout(paysim.CardSuccess, 100), payapi.WithIdempotencyKey("proj-key-1"), payapi.WithProject("shop2")))
		if a.ID == b.ID {
			t.Fatalf("one key under two projects gave one session %s", a.ID)
		}
		e.idle()
		// A session belongs to its project.
		_, err := e.client.Status(e.ctx, b.ID)
		apiErr(t, err, payapi.CodeRecordNotFound, "")
		equal(t, "shop2 status", e.ok(e.client.Status(e.ctx, b.ID, payapi.WithProject("shop2"))).ID, b.ID)
		_, err = e.client.Status(e.ctx, b.ID, payapi.WithProject("shop3"))
		apiErr(t, err, payapi.CodeUnknownProject, "project.unknown")
	})
}

func TestSubmerchantHeaderAndMetadataRule(t *testing.T) {
	e := newEnv(t, 1, nil)
	req := payment(paysim.CardSuccess, 500)
	req.Metadata = json.RawMessage(`{"merchant":"","submerchant":"https://shop.example"}`)
	e.ok(e.client.InitPayment(e.ctx, req, payapi.WithSubmerchant("legal-entity-7")))
	req.Metadata = json.RawMessage(`{"merchant":"m","submerchant":"https://shop.example"}`)
	_, err := e.client.InitPayment(e.ctx, req, payapi.WithSubmerchant("legal-entity-7"))
	apiErr(t, err, payapi.CodeInvalidRequest, "metadata.merchant.present")
	// Without the header the same metadata is any JSON.
	e.ok(e.client.InitPayment(e.ctx, req))
}

func TestRecurringTokenReachesTheClientAndIsDisabled(t *testing.T) {
	e := twoProjects(t, 1)
	s := e.ok(e.client.InitPayment(e.ctx, payment(paysim.CardSuccess, 700), payapi.WithIdempotencyKey("rt-pay-1")))
	e.idle()
	op := onlyOp(t, *e.status(s.ID))
	if op.RecurringToken == nil || !op.RecurringToken.IsActive || op.RecurringToken.CreatedAt.IsZero() {
		t.Fatalf("payment's recurring token %+v", op.RecurringToken)
	}
	tok := op.RecurringToken.Token
	finished := e.lastWebhook(s.ID, "payment_finished")
	if rt := onlyOp(t, finished.Session).RecurringToken; rt == nil || rt.Token != tok {
		t.Fatalf("payment_finished recurring token %+v", rt)
	}
	_, err := e.client.DisableRecurring(e.ctx, tok, payapi.WithProject("shop2"))
	apiErr(t, err, payapi.CodeRecordNotFound, "")
	// Payouts take a token from any project.
	e.ok(e.client.InitPayout(e.ctx, payapi.InitPayoutRequest{Instrument: payapi.TokenInstrument(tok), Amount: rub(100)}, payapi.WithProject("shop2")))
	_, err = e.client.InitPayment(e.ctx, payapi.InitPaymentRequest{Instrument: payapi.TokenInstrument(tok), Amount: rub(100),
		Customer: &payapi.Customer{Reference: "c"}}, payapi.WithProject("shop2"))
	apiErr(t, err, payapi.CodeInvalidRequest, "payment_details.card.tokenized_card.token.unknown")
	rt, err := e.client.DisableRecurring(e.ctx, tok)
	if err != nil || rt.Token != tok || rt.IsActive {
		t.Fatalf("disable: %+v %v", rt, err)
	}
}

func TestThreeDSecurePostRedirectContract(t *testing.T) {
	versions(t, func(t *testing.T, v int) {
		e := newEnv(t, v, nil)
		s := e.ok(e.client.InitPayment(e.ctx, payment(paysim.Card3DSPost, 900)))
		e.idle()
		wh := e.lastWebhook(s.ID, "action_required")
		ci := onlyOp(t, wh.Session).CustomerInteraction
		if ci == nil || ci.Redirect == nil {
			t.Fatalf("no redirect in action_required")
		}
		r := ci.Redirect
		equal(t, "method", r.Method, "POST")
		equal(t, "MD", r.Params["MD"], onlyOp(t, wh.Session).ID)
		if r.Params["PaReq"] == "" || r.Params["TermUrl"] == "" || r.BaseURL == "" {
			t.Fatalf("redirect %+v", r)
		}
		if err := e.sim.Complete3DS(r.Params["MD"], true); err != nil {
			t.Fatal(err)
		}
		e.advance(time.Second)
		equal(t, "status", onlyOp(t, *e.status(s.ID)).Status, "succeeded")
	})
}

func TestPayoutByCardNumberAlone(t *testing.T) {
	versions(t, func(t *testing.T, v int) {
		e := newEnv(t, v, nil)
		req := payout(paysim.CardSuccess, 300)
		req.Instrument = payapi.CardInstrument(sensitive.PAN(paysim.CardSuccess), "", "", "")
		s := e.ok(e.client.InitPayout(e.ctx, req))
		e.idle()
		equal(t, "status", onlyOp(t, *e.status(s.ID)).Status, "succeeded")
		pay := payment(paysim.CardSuccess, 300)
		pay.Instrument = req.Instrument
		_, err := e.client.InitPayment(e.ctx, pay)
		apiErr(t, err, payapi.CodeInvalidRequest, "payment_details.card.bank_card.expiration_month.blank")
	})
}

func TestSandboxRulesAsTheClientReadsThem(t *testing.T) {
	e := newEnv(t, 1, nil)
	_, err := e.client.TokenizeCards(e.ctx, []payapi.CardElement{{Ref: "a", CardNumber: sensitive.PAN(paysim.CardSuccess)}, {Ref: "a", CardNumber: sensitive.PAN(paysim.CardHold)}})
	apiErr(t, err, payapi.CodeInvalidRequest, "card_elements.1.ref.non_unique")
	if tok, err := e.client.PublicToken(e.ctx, payapi.PublicTokenRequest{}); err != nil || tok == "" {
		t.Fatalf("token without widgets: %q %v", tok, err)
	}
	held := e.ok(e.client.InitPayment(e.ctx, payment(paysim.CardHold, 1000)))
	e.idle()
	_, err = e.client.Capture(e.ctx, payapi.CaptureRequest{SessionID: held.ID, Amount: &payapi.Amount{Value: 10, Currency: "usd"}})
	apiErr(t, err, payapi.CodeInvalidRequest, "amount_details.currency.currency")
}
