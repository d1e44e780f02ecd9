package sessionstate

import (
	"testing"
	"time"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// TestNewerUsesProgressForTies: snapshots sharing updated_at and session
// status are ordered by how far their operations and refunds went, so a
// refund's progress is written and its older snapshot is not.
func TestNewerUsesProgressForTies(t *testing.T) {
	mk := func(refund string) *codec.SessionState {
		s := &payapi.Session{ID: "ps_9", Status: "accepted", UpdatedAt: t0, Payments: []payapi.Operation{{ID: "pm_1", Status: "succeeded"}}}
		if refund != "" {
			s.Payments[0].Refunds = []payapi.Refund{{ID: "rf_1", Status: refund}}
		}
		return FromAPI(s, "poll", t0, 1)
	}
	var last *codec.SessionVersion
	steps := []struct {
		refund string
		newer  bool
	}{{"", true}, {"in_progress", true}, {"", false}, {"accepted", true}, {"in_progress", false}}
	for i, s := range steps {
		v := codec.VersionOf(mk(s.refund))
		got := last == nil || codec.Newer(v, *last)
		if got != s.newer {
			t.Fatalf("step %d (%q): newer = %v, want %v", i, s.refund, got, s.newer)
		}
		if got {
			last = &v
		}
	}
}
