package outbound

import "testing"

func TestVarintLen(t *testing.T) {
	for _, tc := range []struct{ n, want int }{
		{0, 1}, {63, 1}, {64, 2}, {8191, 2}, {8192, 3}, {1<<20 - 1, 3}, {1 << 20, 4}, {1<<27 - 1, 4}, {1 << 27, 5},
	} {
		if got := varintLen(tc.n); got != tc.want {
			t.Errorf("varintLen(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}
