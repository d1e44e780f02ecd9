package pipeline

import (
	"testing"
	"time"
)

func TestBackoffWait(t *testing.T) {
	b := newBackoff(RetryPolicy{Initial: 100 * time.Millisecond, Max: time.Second, MaxAttempts: 5, Budget: time.Minute}, 42)
	tests := []struct {
		name       string
		attempts   int
		retryAfter time.Duration
		lo, hi     time.Duration
	}{
		{"first", 1, 0, 0, 100 * time.Millisecond},
		{"third", 3, 0, 0, 400 * time.Millisecond},
		{"capped", 10, 0, 0, time.Second},
		{"retry-after wins", 1, 800 * time.Millisecond, 800 * time.Millisecond, time.Second},
		{"retry-after capped at Max", 1, 24 * time.Hour, time.Second, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 200 {
				if d := b.wait(tt.attempts, tt.retryAfter); d < tt.lo || d > tt.hi {
					t.Fatalf("wait(%d) = %v, want in [%v, %v]", tt.attempts, d, tt.lo, tt.hi)
				}
			}
		})
	}
}

func TestBackoffSeeded(t *testing.T) {
	p := RetryPolicy{}.withDefaults()
	a, b := newBackoff(p, 7), newBackoff(p, 7)
	for i := 1; i < 20; i++ {
		if x, y := a.wait(i, 0), b.wait(i, 0); x != y {
			t.Fatalf("same seed, attempt %d: %v != %v", i, x, y)
		}
	}
}

func TestBackoffExhausted(t *testing.T) {
	b := newBackoff(RetryPolicy{MaxAttempts: 3, Budget: time.Minute}.withDefaults(), 1)
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name     string
		attempts int
		now      time.Time
		want     bool
	}{
		{"fresh", 1, t0, false},
		{"attempts spent", 3, t0, true},
		{"budget spent", 1, t0.Add(time.Minute), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := b.exhausted(tt.attempts, t0, tt.now); got != tt.want {
				t.Fatalf("exhausted = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestProbeWaitCapsRetryAfter(t *testing.T) {
	p := newTestPipeline(t, &fakeAPI{}, func(c *Config) { c.ProbeInterval = time.Second })
	for _, tt := range []struct{ retryAfter, want time.Duration }{
		{0, time.Second},
		{30 * time.Second, 30 * time.Second},
		{86400 * time.Second, maxProbeWait},
	} {
		if got := p.probeWait(tt.retryAfter); got != tt.want {
			t.Errorf("probeWait(%v) = %v, want %v", tt.retryAfter, got, tt.want)
		}
	}
}
