package connector

import "testing"

// TestSplitProcessors: by default the runtime gets one processor more than
// its own count and signing that count, so one is left for network I/O;
// a GOMAXPROCS the operator set is kept whole, signing may take it all.
func TestSplitProcessors(t *testing.T) {
	for _, c := range []struct {
		env                 string
		current             int
		wantProcs, wantSign int
	}{
		{"", 1, 2, 1},
		{"", 2, 3, 2},
		{"", 8, 9, 8},
		{"2", 2, 2, 2},
		{"1", 1, 1, 1},
	} {
		procs, sign := splitProcessors(c.env, c.current)
		if procs != c.wantProcs || sign != c.wantSign {
			t.Errorf("splitProcessors(%q, %d) = %d, %d; want %d, %d", c.env, c.current, procs, sign, c.wantProcs, c.wantSign)
		}
	}
}
