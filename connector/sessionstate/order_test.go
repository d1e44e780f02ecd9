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
	var last *Version
	steps := []struct {
		refund string
		newer  bool
	}{{"", true}, {"in_progress", true}, {"", false}, {"accepted", true}, {"in_progress", false}}
	for i, s := range steps {
		v := VersionOf(mk(s.refund))
		got := last == nil || Newer(v, *last)
		if got != s.newer {
			t.Fatalf("step %d (%q): newer = %v, want %v", i, s.refund, got, s.newer)
		}
		if got {
			last = &v
		}
	}
}

// TestStampOrdersLikeTheTimes: a Stamp orders by the instant of updated_at
// (nanoseconds, far dates and the zero time included), then rank, then
// progress, and gives updated_at back.
func TestStampOrdersLikeTheTimes(t *testing.T) {
	far := time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
	cases := []struct {
		name  string
		a, b  Version
		newer bool
	}{
		{"a nanosecond later", Version{UpdatedAt: t0.Add(time.Nanosecond)}, Version{UpdatedAt: t0}, true},
		{"a nanosecond earlier", Version{UpdatedAt: t0}, Version{UpdatedAt: t0.Add(time.Nanosecond)}, false},
		{"year 9999 after today", Version{UpdatedAt: far}, Version{UpdatedAt: t0}, true},
		{"zero time before anything", Version{}, Version{UpdatedAt: time.Unix(0, 0)}, false},
		{"same instant, other zone", Version{UpdatedAt: t0.In(time.FixedZone("x", 3600)), Status: "pending"}, Version{UpdatedAt: t0, Status: "pending"}, false},
		{"same time, higher rank", Version{UpdatedAt: t0, Status: "accepted"}, Version{UpdatedAt: t0, Status: "pending"}, true},
		{"same time and rank, more progress", Version{UpdatedAt: t0, Status: "accepted", Progress: 9}, Version{UpdatedAt: t0, Status: "accepted", Progress: 8}, true},
		{"progress beyond int32 saturates, still more", Version{UpdatedAt: t0, Progress: 1 << 40}, Version{UpdatedAt: t0, Progress: 5}, true},
	}
	for _, c := range cases {
		if got := c.a.Stamp().Newer(c.b.Stamp()); got != c.newer {
			t.Errorf("%s: Newer = %v, want %v", c.name, got, c.newer)
		}
		if got := c.a.Stamp().UpdatedAt(); !got.Equal(c.a.UpdatedAt) || got.IsZero() != c.a.UpdatedAt.IsZero() {
			t.Errorf("%s: UpdatedAt() = %v, want %v", c.name, got, c.a.UpdatedAt)
		}
	}
}
