package apicontract

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/paysim"
)

// Row "(none) | session/create | valid request | session created | Response
// has no operations", then row "session created | session/start/payout |
// required data present earlier | session in_progress, operation in_progress".
func TestRowCreateThenStartPayout(t *testing.T) {
	versions(t, func(t *testing.T, v int) {
		e := newEnv(t, v, nil)
		s := e.ok(e.client.CreateSession(e.ctx, payapi.CreateSessionRequest{PayoutInstrument: cardInst(paysim.CardSuccess), Amount: rub(5000)}))
		equal(t, "status", s.Status, "created")
		equal(t, "operations", len(s.Payouts)+len(s.Payments), 0)
		if !strings.HasPrefix(s.ID, "ps_") || s.CreatedAt.IsZero() || s.UpdatedAt.IsZero() {
			t.Fatalf("session %+v", s)
		}
		s = e.ok(e.client.StartPayout(e.ctx, payapi.StartPayoutRequest{SessionID: s.ID}))
		equal(t, "status", s.Status, "in_progress")
		op := onlyOp(t, *s)
		equal(t, "op status", op.Status, "in_progress")
		if len(s.Payouts) != 1 || !strings.HasPrefix(op.ID, "po_") {
			t.Fatalf("payout not in the payout array: %+v", s)
		}
		equal(t, "instrument last4", op.Instrument.Card.Last4, "1111")
	})
}

// Row "session created | session/start/payment | required data ... in this
// request | in_progress"; missing data is invalid_request.
func TestRowCreateThenStartPayment(t *testing.T) {
	versions(t, func(t *testing.T, v int) {
		e := newEnv(t, v, nil)
		s := e.ok(e.client.CreateSession(e.ctx, payapi.CreateSessionRequest{Amount: rub(700)}))
		_, err := e.client.StartPayment(e.ctx, payapi.StartPaymentRequest{SessionID: s.ID})
		apiErr(t, err, "invalid_request", "payment_details.blank")
		p := payment(paysim.CardSuccess, 700)
		s = e.ok(e.client.StartPayment(e.ctx, payapi.StartPaymentRequest{SessionID: s.ID, Instrument: p.Instrument, Customer: p.Customer}))
		equal(t, "status", s.Status, "in_progress")
		equal(t, "payments", len(s.Payments), 1)
		equal(t, "amount from create", s.Payments[0].Amount.Value, int64(700))
	})
}

// Rows "(none) | session/init/payment|payout | in_progress" and "operation
// in progress | service completes | succeeded, session accepted |
// payment_finished" (with transaction_info and fees in amounts).
func TestRowInitAndServiceCompletes(t *testing.T) {
	versions(t, func(t *testing.T, v int) {
		e := newEnv(t, v, nil)
		pay := e.ok(e.client.InitPayment(e.ctx, payment(paysim.CardSuccess, 10000)))
		out := e.ok(e.client.InitPayout(e.ctx, payout(paysim.CardSuccess, 20000)))
		for _, s := range []*payapi.Session{pay, out} {
			equal(t, "status", s.Status, "in_progress")
			equal(t, "op status", onlyOp(t, *s).Status, "in_progress")
		}
		e.idle()
		for _, id := range []string{pay.ID, out.ID} {
			types, _ := e.webhooks(id)
			equalTypes(t, types, "payment_finished")
			w := e.lastWebhook(id, "payment_finished")
			equal(t, "session status", w.Session.Status, "accepted")
			op := onlyOp(t, w.Session)
			equal(t, "op status", op.Status, "succeeded")
			if op.TransactionInfo == nil || op.TransactionInfo.RRN == "" || op.Fees == nil || op.Fees.MerchantFee == nil || op.FinishedAt == nil {
				t.Fatalf("payment_finished lacks transaction_info/amounts/finished_at: %+v", op)
			}
			equal(t, "fee currency", op.Fees.MerchantFee.Currency, "RUB")
		}
		equal(t, "metadata", string(onlyOp(t, *e.status(pay.ID)).Metadata), `{"order":"o-1"}`)
	})
}

// Test card 4000000000000002: declined, operation canceled, payment_finished.
func TestDeclinedCard(t *testing.T) {
	e := newEnv(t, 1, nil)
	s := e.ok(e.client.InitPayment(e.ctx, payment(paysim.CardDeclined, 100)))
	e.idle()
	op := onlyOp(t, e.lastWebhook(s.ID, "payment_finished").Session)
	equal(t, "status", op.Status, "canceled")
}

// Row "operation in_progress (customer action needed) | service needs a user
// action (3-D Secure) | operation pending | action_required webhook" with a
// customer_interaction redirect; completing the redirect finishes it.
func TestRowActionRequired(t *testing.T) {
	e := newEnv(t, 2, nil)
	s := e.ok(e.client.InitPayment(e.ctx, payment(paysim.Card3DS, 1000)))
	e.idle()
	w := e.lastWebhook(s.ID, "action_required")
	op := onlyOp(t, w.Session)
	equal(t, "status", op.Status, "pending")
	ci := op.CustomerInteraction
	if ci == nil || ci.Type != "redirect" || ci.Redirect == nil || ci.Redirect.URL == "" || ci.Redirect.Method != "GET" {
		t.Fatalf("customer_interaction: %+v", ci)
	}
	res, err := http.Get(ci.Redirect.URL + "&result=success")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("3-D Secure page: %v %v", err, res)
	}
	res.Body.Close()
	e.idle()
	equal(t, "final", onlyOp(t, e.lastWebhook(s.ID, "payment_finished").Session).Status, "succeeded")
}

// Row "action pending | no action within 60 minutes | timeout | operation canceled".
func TestRowActionTimeout(t *testing.T) {
	e := newEnv(t, 1, nil)
	s := e.ok(e.client.InitPayment(e.ctx, payment(paysim.Card3DS, 1000)))
	e.idle()
	e.advance(59 * time.Minute)
	equal(t, "before 60 min", onlyOp(t, *e.status(s.ID)).Status, "pending")
	e.advance(time.Minute)
	equal(t, "after 60 min", onlyOp(t, *e.status(s.ID)).Status, "canceled")
	types, _ := e.webhooks(s.ID)
	equalTypes(t, types, "action_required", "payment_finished")
}

// Row "operation pending, session next_action confirm | service ready to
// process | unchanged | ready_to_confirm webhook" (payout at the confirm
// threshold), then "session/confirm | partner accepts | session in_progress;
// response shows operation pending; result by payment_finished".
func TestRowReadyToConfirmThenConfirm(t *testing.T) {
	versions(t, func(t *testing.T, v int) {
		e := newEnv(t, v, nil)
		s := e.ok(e.client.InitPayout(e.ctx, payout(paysim.CardSuccess, paysim.DefaultConfirmAbove)))
		e.idle()
		w := e.lastWebhook(s.ID, "ready_to_confirm")
		equal(t, "next_action", w.Session.NextAction, "confirm")
		equal(t, "op", onlyOp(t, w.Session).Status, "pending")
		c := e.ok(e.client.Confirm(e.ctx, s.ID))
		equal(t, "session", c.Status, "in_progress")
		equal(t, "op in response", onlyOp(t, *c).Status, "pending")
		e.idle()
		equal(t, "final", onlyOp(t, e.lastWebhook(s.ID, "payment_finished").Session).Status, "succeeded")
		equal(t, "payout ledger entries", len(e.sim.Ledger(s.ID)), 1)
	})
}

// Row "operation pending, next_action confirm | session/cancel | partner
// declines | session in_progress per response sample"; final: canceled.
func TestRowConfirmCancel(t *testing.T) {
	e := newEnv(t, 1, nil)
	s := e.ok(e.client.InitPayment(e.ctx, payment(paysim.CardRequiresConfirm, 500)))
	e.idle()
	e.lastWebhook(s.ID, "ready_to_confirm")
	c := e.ok(e.client.Cancel(e.ctx, s.ID))
	equal(t, "session", c.Status, "in_progress")
	e.idle()
	equal(t, "final", onlyOp(t, e.lastWebhook(s.ID, "payment_finished").Session).Status, "canceled")
	equal(t, "no money moved", len(e.sim.Ledger(s.ID)), 0)
}

// Row "awaiting confirmation | no confirmation within 240 minutes | operation
// canceled | auto-confirmation: no ready_to_confirm".
func TestRowConfirmTimeoutAndAutoConfirm(t *testing.T) {
	e := newEnv(t, 1, func(p *paysim.Project) { p.AutoConfirm = false })
	s := e.ok(e.client.InitPayout(e.ctx, payout(paysim.CardSuccess, 100)))
	e.idle()
	e.lastWebhook(s.ID, "ready_to_confirm")
	e.advance(239 * time.Minute)
	equal(t, "before", onlyOp(t, *e.status(s.ID)).Status, "pending")
	e.advance(time.Minute)
	equal(t, "after 240 min", onlyOp(t, *e.status(s.ID)).Status, "canceled")

	auto := newEnv(t, 1, nil)
	s = auto.ok(auto.client.InitPayout(auto.ctx, payout(paysim.CardSuccess, paysim.DefaultConfirmAbove-1)))
	auto.idle()
	types, _ := auto.webhooks(s.ID)
	equalTypes(t, types, "payment_finished")
}

// Row "operation pending, next_action capture | funds frozen | hold payment |
// ready_to_capture", then "held payment | session/capture | within the frozen
// amount | session in_progress, payment succeeded" (partial capture shows a
// refund in_progress for the rest), and capture above the frozen amount.
func TestRowHoldAndCapture(t *testing.T) {
	versions(t, func(t *testing.T, v int) {
		e := newEnv(t, v, nil)
		s := e.ok(e.client.InitPayment(e.ctx, payment(paysim.CardHold, 10000)))
		e.idle()
		w := e.lastWebhook(s.ID, "ready_to_capture")
		equal(t, "next_action", w.Session.NextAction, "capture")
		equal(t, "op", onlyOp(t, w.Session).Status, "pending")
		_, err := e.client.Capture(e.ctx, payapi.CaptureRequest{SessionID: s.ID, Amount: rub(10001)})
		apiErr(t, err, "invalid_request", "amount_details.amount.exceeds_frozen")
		_, err = e.client.Capture(e.ctx, payapi.CaptureRequest{SessionID: s.ID, Amount: rub(0)})
		apiErr(t, err, "invalid_request", "amount_details.amount.positive")
		c := e.ok(e.client.Capture(e.ctx, payapi.CaptureRequest{SessionID: s.ID, Amount: rub(6000)}))
		equal(t, "session", c.Status, "in_progress")
		op := onlyOp(t, *c)
		equal(t, "payment", op.Status, "succeeded")
		if len(op.Refunds) != 1 || op.Refunds[0].Status != "in_progress" || op.Refunds[0].Amount.Value != 4000 {
			t.Fatalf("refunds: %+v", op.Refunds)
		}
		e.idle()
		equal(t, "session", e.lastWebhook(s.ID, "payment_finished").Session.Status, "accepted")
	})
}

// Capture without an amount takes the whole frozen amount; session/cancel
// of a held payment cancels it.
func TestRowCaptureFullAndHoldCancel(t *testing.T) {
	e := newEnv(t, 1, nil)
	s := e.ok(e.client.InitPayment(e.ctx, payment(paysim.CardHold, 3000)))
	e.idle()
	c := e.ok(e.client.Capture(e.ctx, payapi.CaptureRequest{SessionID: s.ID}))
	equal(t, "no release refund", len(onlyOp(t, *c).Refunds), 0)
	e.idle()
	var captured int64
	for _, l := range e.sim.Ledger(s.ID) {
		if l.Kind == "payment" {
			captured += l.Amount
		}
	}
	equal(t, "captured", captured, int64(3000))

	s = e.ok(e.client.InitPayment(e.ctx, payment(paysim.CardHold, 3000)))
	e.idle()
	e.ok(e.client.Cancel(e.ctx, s.ID))
	e.idle()
	equal(t, "held payment canceled", onlyOp(t, e.lastWebhook(s.ID, "payment_finished").Session).Status, "canceled")
}

// Row "successful payment | session/refund | payment succeeded | refund
// in_progress | payment_refunded after completion": partial, then the rest
// (no amount), then nothing left.
func TestRowRefund(t *testing.T) {
	versions(t, func(t *testing.T, v int) {
		e := newEnv(t, v, nil)
		s := e.ok(e.client.InitPayment(e.ctx, payment(paysim.CardSuccess, 10000)))
		e.idle()
		_, err := e.client.Refund(e.ctx, payapi.RefundRequest{SessionID: s.ID, Amount: rub(10001)})
		apiErr(t, err, "invalid_request", "amount_details.amount.exceeds_paid")
		r := e.ok(e.client.Refund(e.ctx, payapi.RefundRequest{SessionID: s.ID, Amount: rub(2500)}))
		refunds := onlyOp(t, *r).Refunds
		if len(refunds) != 1 || refunds[0].Status != "in_progress" || !strings.HasPrefix(refunds[0].ID, "rf_") {
			t.Fatalf("refunds: %+v", refunds)
		}
		e.idle()
		w := e.lastWebhook(s.ID, "payment_refunded")
		got := onlyOp(t, w.Session).Refunds[0]
		equal(t, "refund status", got.Status, "accepted")
		equal(t, "chargeback", got.IsChargeback, false)
		r = e.ok(e.client.Refund(e.ctx, payapi.RefundRequest{SessionID: s.ID}))
		equal(t, "rest refunded", onlyOp(t, *r).Refunds[1].Amount.Value, int64(7500))
		_, err = e.client.Refund(e.ctx, payapi.RefundRequest{SessionID: s.ID, Amount: rub(1)})
		apiErr(t, err, "invalid_request", "amount_details.amount.exceeds_paid")
	})
}

// Row "successful payment | chargeback | refund accepted with is_chargeback
// true | payment_refunded" (chargeback through the admin endpoint).
func TestRowChargeback(t *testing.T) {
	e := newEnv(t, 1, nil)
	s := e.ok(e.client.InitPayment(e.ctx, payment(paysim.CardSuccess, 4000)))
	e.idle()
	res, err := http.Post(e.sim.URL()+"/admin/chargeback", "application/json", strings.NewReader(`{"session_id":"`+s.ID+`"}`))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("chargeback: %v %v", err, res)
	}
	res.Body.Close()
	e.idle()
	rf := onlyOp(t, e.lastWebhook(s.ID, "payment_refunded").Session).Refunds[0]
	if !rf.IsChargeback || rf.Status != "accepted" || rf.Amount.Value != 4000 {
		t.Fatalf("chargeback refund: %+v", rf)
	}
}

// Rows "FPS verification | fps/customer_verification | recipient found |
// session gets a successful status | free of charge, auto-confirmed" and
// "recipient not found | session canceled".
func TestRowFPSVerification(t *testing.T) {
	versions(t, func(t *testing.T, v int) {
		e := newEnv(t, v, func(p *paysim.Project) { p.AutoConfirm = false })
		rcp := payapi.Recipient{FirstName: "Ivan", LastName: "Petrov", MiddleName: "Ivanovich"}
		for phone, want := range map[string][2]string{paysim.PhoneFPSFound: {"accepted", "succeeded"}, paysim.PhoneFPSNotFound: {"canceled", "canceled"}} {
			s := e.ok(e.client.VerifyFPSCustomer(e.ctx, payapi.FPSVerificationRequest{Phone: phone, BankID: paysim.FPSBanks[0].ID, Recipient: rcp}))
			op := onlyOp(t, *s)
			if op.Amount == nil || op.Amount.Value <= 0 || len(s.Payouts) != 1 {
				t.Fatalf("fps verification op: %+v", op)
			}
			e.idle()
			types, _ := e.webhooks(s.ID)
			equalTypes(t, types, "payment_finished") // auto-confirmed: no ready_to_confirm
			w := e.lastWebhook(s.ID, "payment_finished")
			equal(t, phone+" session", w.Session.Status, want[0])
			fop := onlyOp(t, w.Session)
			equal(t, phone+" op", fop.Status, want[1])
			if fop.Fees != nil && fop.Fees.MerchantFee != nil && fop.Fees.MerchantFee.Value != 0 {
				t.Fatalf("FPS verification charged %d", fop.Fees.MerchantFee.Value)
			}
		}
	})
}
