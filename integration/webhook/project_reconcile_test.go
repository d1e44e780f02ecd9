package webhook

import (
	"strings"
	"testing"

	"github.com/paysession/paysession/connector/reconcile"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/paysim"
)

// TestSecondProjectReconciledUnderItsProject: a held payment of the second
// project gets its ready_to_capture webhook at that project's path, so its
// state on payments.sessions names the project. Then the connector stops
// taking webhooks, and a partial capture (a command of that project)
// leaves the release of the rest in progress; its completion is never
// delivered. The reconciler finishes the session by polling it — under
// the second project, kept across states that do not name it — and every
// call for the session reaches the service under that project; none is
// refused as unknown (a session is found under its own project only).
func TestSecondProjectReconciledUnderItsProject(t *testing.T) {
	r := startConnector(t, func(vars map[string]string) {
		vars["PAYSESSION_RECONCILER_QUIET_AFTER"] = "2s"
	})
	pay := "proj-hold-" + randomKey()
	r.send(t, codec.KindInitPayment, pay, paymentCommand(paysim.CardHold, 9000, `,"project":"`+secondProject+`"`))
	id := r.accepted(t, pay)
	named := func(s *codec.SessionState) bool { return s.Project != nil && *s.Project == secondProject }
	r.state(t, id, "ready_to_capture by webhook, naming the second project", func(s *codec.SessionState) bool {
		return s.Source == codec.SourceWebhook && deref(s.WebhookType) == "ready_to_capture" && named(s)
	})

	if err := r.Sandbox.SetFaults(paysim.Faults{WebhookRefuse: 1}); err != nil {
		t.Fatal(err)
	}
	capture := "proj-capture-" + randomKey()
	r.send(t, codec.KindCapture, capture, `{"session_id":"`+id+`","amount":5000,"currency":"rub","project":"`+secondProject+`"}`)
	r.accepted(t, capture)

	final := r.state(t, id, "settled by a poll", func(s *codec.SessionState) bool {
		return s.Source == codec.SourcePoll && reconcile.Settled(&s.Session)
	})
	if !named(final) {
		t.Errorf("the reconciler's state names project %v, want %s", deref(final.Project), secondProject)
	}
	op := opOf(t, &final.Session)
	if op.Status != "succeeded" || len(op.Refunds) != 1 || op.Refunds[0].Status != "accepted" {
		t.Errorf("final operation %s with refunds %+v, want succeeded with its release refund accepted", op.Status, op.Refunds)
	}

	ex, _ := r.Sandbox.Executions(id)
	polls := 0
	for _, e := range ex {
		if e.Project != secondProject || e.Result != "ok" {
			t.Errorf("call %s of the session under project %q: %s", e.Method, e.Project, e.Result)
		}
		if e.Method == "session/status" {
			polls++
		}
	}
	if polls == 0 {
		t.Error("the session was never polled")
	}
	for _, d := range r.Sandbox.Webhooks() {
		if d.SessionID != id {
			continue
		}
		if !strings.HasSuffix(d.URL, "/"+secondProject) {
			t.Errorf("webhook %s sent to %s, not the second project's path", d.Type, d.URL)
		}
		if d.Type != "ready_to_capture" && d.State == "delivered" {
			t.Errorf("webhook %s was delivered while the endpoint refused webhooks", d.Type)
		}
	}
}
