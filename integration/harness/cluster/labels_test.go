package cluster

import "testing"

// TestLabelsCarryTheSession: with CHAOS_SESSION set (make chaos sets it per run), everything a
// cluster creates carries the session, so that the run's cleanup removes its own and nothing of
// another run on the same daemon; without it only Label is set.
func TestLabelsCarryTheSession(t *testing.T) {
	t.Setenv(SessionEnv, "")
	if l := Labels("r1"); l[Label] != "r1" || l[SessionLabel] != "" {
		t.Errorf("without a session: %v", l)
	}
	t.Setenv(SessionEnv, "s1")
	if l := Labels("r1"); l[Label] != "r1" || l[SessionLabel] != "s1" {
		t.Errorf("with session s1: %v", l)
	}
}
