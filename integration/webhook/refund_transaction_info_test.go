package webhook

import (
	"testing"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/paysim"
)

// TestRefundTransactionInfoReachesSessions: a refund command on a paid
// session ends with a refund whose rrn and auth_code (the acquirer's
// references a ledger matches refunds by) reach payments.sessions, and the
// payment_refunded event on payments.webhook-events carries them too.
func TestRefundTransactionInfoReachesSessions(t *testing.T) {
	r := startConnector(t)
	pay := "refund-pay-" + randomKey()
	r.send(t, codec.KindInitPayment, pay, paymentCommand(paysim.CardSuccess, 10000, ""))
	id := r.accepted(t, pay)
	r.state(t, id, "payment succeeded", func(s *codec.SessionState) bool {
		return len(s.Session.Operations) == 1 && s.Session.Operations[0].Status == "succeeded"
	})
	refund := "refund-" + randomKey()
	r.send(t, codec.KindRefund, refund, `{"session_id":"`+id+`","amount":2500,"currency":"rub"}`)
	r.accepted(t, refund)

	done := func(ops []codec.Operation) *codec.OperationRefund {
		if len(ops) != 1 || len(ops[0].Refunds) != 1 || ops[0].Refunds[0].Status != "accepted" {
			return nil
		}
		return &ops[0].Refunds[0]
	}
	st := r.state(t, id, "refund accepted", func(s *codec.SessionState) bool { return done(s.Session.Operations) != nil })
	ev := r.event(t, id, "payment_refunded", func(e *codec.WebhookEvent) bool {
		return e.Type == "payment_refunded" && done(e.Session.Operations) != nil
	})
	for what, rf := range map[string]*codec.OperationRefund{"sessions": done(st.Session.Operations), "webhook-events": done(ev.Session.Operations)} {
		if rf.RRN == nil || len(*rf.RRN) != 12 || rf.AuthCode == nil || len(*rf.AuthCode) != 6 {
			t.Errorf("%s: refund rrn %v auth_code %v", what, deref(rf.RRN), deref(rf.AuthCode))
		}
		if rf.CreatedAt == nil || rf.FinishedAt == nil || rf.Amount == nil || *rf.Amount != 2500 {
			t.Errorf("%s: refund %+v", what, rf)
		}
		if pay := st.Session.Operations[0]; rf.RRN != nil && pay.RRN != nil && *rf.RRN == *pay.RRN {
			t.Errorf("%s: refund rrn equals the payment's %s", what, *pay.RRN)
		}
	}
}
