package codec

import (
	"testing"
	"time"
)

// TestStampOrdersLikeTheTimes: a SessionStamp orders by the instant of updated_at
// (nanoseconds, far dates and the zero time included), then rank, then
// progress, and gives updated_at back.
func TestStampOrdersLikeTheTimes(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	far := time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
	cases := []struct {
		name  string
		a, b  SessionVersion
		newer bool
	}{
		{"a nanosecond later", SessionVersion{UpdatedAt: t0.Add(time.Nanosecond)}, SessionVersion{UpdatedAt: t0}, true},
		{"a nanosecond earlier", SessionVersion{UpdatedAt: t0}, SessionVersion{UpdatedAt: t0.Add(time.Nanosecond)}, false},
		{"year 9999 after today", SessionVersion{UpdatedAt: far}, SessionVersion{UpdatedAt: t0}, true},
		{"zero time before anything", SessionVersion{}, SessionVersion{UpdatedAt: time.Unix(0, 0)}, false},
		{"same instant, other zone", SessionVersion{UpdatedAt: t0.In(time.FixedZone("x", 3600)), Status: "pending"}, SessionVersion{UpdatedAt: t0, Status: "pending"}, false},
		{"same time, higher rank", SessionVersion{UpdatedAt: t0, Status: "accepted"}, SessionVersion{UpdatedAt: t0, Status: "pending"}, true},
		{"same time and rank, more progress", SessionVersion{UpdatedAt: t0, Status: "accepted", Progress: 9}, SessionVersion{UpdatedAt: t0, Status: "accepted", Progress: 8}, true},
		{"progress beyond int32 saturates, still more", SessionVersion{UpdatedAt: t0, Progress: 1 << 40}, SessionVersion{UpdatedAt: t0, Progress: 5}, true},
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
