package webhook

import (
	"testing"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/paysim"
)

const payoutByCard = `{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4111111111111111",` +
	`"expiration_month":"12","expiration_year":"29"}}},"amount":1500,"currency":"rub"`

// TestTwoProjectsOneConnector: one connector serves two partner projects,
// each with its own private key (PAYSESSION_API_EXTRA_PROJECTS). A command
// naming no project goes out under the default one, a command naming the
// second under that one, each signed with its project's key (the sandbox
// verifies every request against the project's public key); a session of
// the second project is found under its project only; a command naming an
// unknown project is invalid and never sent.
//
// It needs connector/wiring.go to give the API client the extra projects.
func TestTwoProjectsOneConnector(t *testing.T) {
	r := startConnector(t)
	first, second := "proj-a-"+randomKey(), "proj-b-"+randomKey()
	r.send(t, codec.KindInitPayout, first, payoutByCard+`}`)
	r.send(t, codec.KindInitPayout, second, payoutByCard+`,"project":"`+secondProject+`"}`)
	firstID, secondID := r.accepted(t, first), r.accepted(t, second)
	for id, want := range map[string]string{firstID: mainProject, secondID: secondProject} {
		ex, _ := r.Sandbox.Executions(id)
		if len(ex) == 0 || ex[0].Project != want || ex[0].Result != "ok" {
			t.Errorf("session %s: executions %+v, want the first under %s", id, ex, want)
		}
		r.state(t, id, "payout succeeded", func(s *codec.SessionState) bool {
			return len(s.Session.Operations) == 1 && s.Session.Operations[0].Status == "succeeded"
		})
	}

	mine, other := "proj-status-b-"+randomKey(), "proj-status-a-"+randomKey()
	r.send(t, codec.KindStatusRefresh, mine, `{"session_id":"`+secondID+`","project":"`+secondProject+`"}`)
	r.send(t, codec.KindStatusRefresh, other, `{"session_id":"`+secondID+`"}`)
	r.accepted(t, mine)
	if res := r.result(t, other); res.Status != codec.StatusRejected || deref(res.ErrorCode) != "repository_record_not_found" {
		t.Errorf("status of a second-project session under the default project: %s %v", res.Status, deref(res.ErrorCode))
	}

	unknown := "proj-unknown-" + randomKey()
	r.send(t, codec.KindInitPayout, unknown, payoutByCard+`,"project":"e2e-third"}`)
	res := r.result(t, unknown)
	if res.Status != codec.StatusInvalid || deref(res.ErrorField) != "project" || res.Attempts > 1 {
		t.Errorf("unknown project: %s code %v field %v attempts %d", res.Status, deref(res.ErrorCode), deref(res.ErrorField), res.Attempts)
	}
	for _, e := range r.executionsByKey(unknown) {
		t.Errorf("a command naming an unknown project reached the service: %+v", e)
	}
}

// executionsByKey returns the sandbox's executions of an idempotency key.
func (r *connRig) executionsByKey(key string) []paysim.Execution {
	all, _ := r.Sandbox.Executions("")
	var out []paysim.Execution
	for _, e := range all {
		if e.IdempotencyKey == key {
			out = append(out, e)
		}
	}
	return out
}
