package webhook

import (
	"testing"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/paysim"
)

// TestSecondProjectPolledWithoutAnyWebhook: no webhook of a second-project
// session ever arrives, so only the pipeline's state of its command tells
// the session's project. The reconciler polls the session under that
// project and learns its next state; nothing about the session goes out
// under the default project.
func TestSecondProjectPolledWithoutAnyWebhook(t *testing.T) {
	r := startConnector(t, func(vars map[string]string) {
		vars["PAYSESSION_RECONCILER_QUIET_AFTER"] = "2s"
	})
	if err := r.Sandbox.SetFaults(paysim.Faults{WebhookRefuse: 1}); err != nil {
		t.Fatal(err)
	}
	pay := "proj-nohook-" + randomKey()
	r.send(t, codec.KindInitPayment, pay, paymentCommand(paysim.CardHold, 9000, `,"project":"`+secondProject+`"`))
	id := r.accepted(t, pay)
	named := func(s *codec.SessionState) bool { return s.Project != nil && *s.Project == secondProject }
	r.state(t, id, "the command's answer, naming the second project", func(s *codec.SessionState) bool {
		return s.Source == codec.SourceAPIResponse && named(s)
	})
	r.state(t, id, "ready to capture, learned by a poll naming the second project", func(s *codec.SessionState) bool {
		return s.Source == codec.SourcePoll && s.Session.NextAction != nil && *s.Session.NextAction == "capture" && named(s)
	})
	ex, _ := r.Sandbox.Executions(id)
	for _, e := range ex {
		if e.Project != secondProject || e.Result != "ok" {
			t.Errorf("call %s of the session under project %q: %s", e.Method, e.Project, e.Result)
		}
	}
}
