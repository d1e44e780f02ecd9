package webhook

import (
	"testing"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/paysim"
)

// TestRecurringTokenReachesDownstreamAndIsDisabled: a card payment command's
// recurring token (token, is_active, created_at, finished_at) reaches
// payments.sessions and the payment_finished event; a disable_recurring
// command is accepted, its result carries the disabled token, and a status
// refresh publishes the payment with the token inactive.
func TestRecurringTokenReachesDownstreamAndIsDisabled(t *testing.T) {
	r := startConnector(t)
	pay := "recurring-pay-" + randomKey()
	r.send(t, codec.KindInitPayment, pay, paymentCommand(paysim.CardSuccess, 3000, ""))
	id := r.accepted(t, pay)

	active := func(ops []codec.Operation) *codec.RecurringToken {
		if len(ops) != 1 || ops[0].RecurringToken == nil || !ops[0].RecurringToken.IsActive {
			return nil
		}
		return ops[0].RecurringToken
	}
	st := r.state(t, id, "an active recurring token", func(s *codec.SessionState) bool { return active(s.Session.Operations) != nil })
	tok := active(st.Session.Operations)
	if tok.Token == "" || tok.CreatedAt == nil || tok.FinishedAt == nil || !tok.FinishedAt.After(*tok.CreatedAt) {
		t.Fatalf("recurring token %+v", tok)
	}
	ev := r.event(t, id, "payment_finished with the token", func(e *codec.WebhookEvent) bool {
		return e.Type == "payment_finished" && active(e.Session.Operations) != nil
	})
	if got := active(ev.Session.Operations).Token; got != tok.Token {
		t.Fatalf("payment_finished token %s, sessions token %s", got, tok.Token)
	}

	disable := "recurring-off-" + randomKey()
	r.send(t, codec.KindDisableRecurring, disable, `{"token":"`+tok.Token+`"}`)
	res := r.result(t, disable)
	if res.Status != codec.StatusAccepted {
		t.Fatalf("disable_recurring: %s %v", res.Status, deref(res.ErrorCode))
	}
	t.Run("the result carries the disabled token", func(t *testing.T) {
		if rt := res.RecurringToken; rt == nil || rt.Token != tok.Token || rt.IsActive {
			t.Fatalf("result recurring_token %+v, want %s inactive", rt, tok.Token)
		}
	})

	refresh := "recurring-status-" + randomKey()
	r.send(t, codec.KindStatusRefresh, refresh, `{"session_id":"`+id+`"}`)
	r.accepted(t, refresh)
	r.state(t, id, "the token inactive", func(s *codec.SessionState) bool {
		ops := s.Session.Operations
		return len(ops) == 1 && ops[0].RecurringToken != nil && ops[0].RecurringToken.Token == tok.Token && !ops[0].RecurringToken.IsActive
	})
}
