package codec

import (
	"testing"

	"github.com/paysession/paysession/schemas"
)

// TestOutcomeTopicsSchemas: each outcome topic carries its own schema, and
// every outcome schema has a topic.
func TestOutcomeTopicsSchemas(t *testing.T) {
	got := OutcomeTopics{CommandResults: "r", Sessions: "s", SessionUpdates: "u", WebhookEvents: "w",
		DeadLetter: "d", WalletBalances: "b", FPSBanks: "f"}.Schemas()
	want := map[string]schemas.Name{"r": schemas.CommandResult, "s": schemas.SessionState, "u": schemas.SessionState,
		"w": schemas.WebhookEvent, "d": schemas.DeadLetter, "b": schemas.WalletBalance, "f": schemas.FPSBanks}
	if len(got) != len(want) {
		t.Errorf("%d topics, want %d: %v", len(got), len(want), got)
	}
	for topic, n := range want {
		if got[topic] != n {
			t.Errorf("topic %s: schema %q, want %q", topic, got[topic], n)
		}
	}
	named := map[schemas.Name]bool{}
	for _, n := range got {
		named[n] = true
	}
	for _, n := range schemas.Outcomes {
		if !named[n] {
			t.Errorf("outcome schema %s has no topic", n)
		}
	}
}
