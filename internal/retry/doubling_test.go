package retry

import (
	"testing"
	"time"
)

func TestDoublingAfter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		d      Doubling
		misses int
		want   time.Duration
	}{
		{"no miss waits Initial", Doubling{time.Second, 10 * time.Second}, 0, time.Second},
		{"one miss doubles", Doubling{time.Second, 10 * time.Second}, 1, 2 * time.Second},
		{"three misses", Doubling{time.Second, 10 * time.Second}, 3, 8 * time.Second},
		{"capped at Max", Doubling{time.Second, 10 * time.Second}, 4, 10 * time.Second},
		{"many misses do not overflow", Doubling{time.Second, 10 * time.Second}, 1000, 10 * time.Second},
		{"Initial above Max gives Max", Doubling{time.Hour, 30 * time.Minute}, 0, 30 * time.Minute},
		{"reconciler defaults", Doubling{5 * time.Minute, 30 * time.Minute}, 2, 20 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.d.After(tc.misses); got != tc.want {
				t.Errorf("%+v.After(%d) = %s, want %s", tc.d, tc.misses, got, tc.want)
			}
		})
	}
}
