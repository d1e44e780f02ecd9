package paysim

import (
	"sync"
	"time"
)

// Clock tells the sandbox what time it is. Key lifetimes, the 60- and
// 240-minute timeouts, public-token validity and webhook retries run on it.
type Clock interface {
	Now() time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// FakeClock is a Clock that moves only when told to. Prefer Server.Advance,
// which also fires the timers that became due; after FakeClock.Advance call
// Server.WaitIdle to fire them.
type FakeClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewFakeClock returns a clock stopped at start.
func NewFakeClock(start time.Time) *FakeClock { return &FakeClock{now: start} }

// Now returns the clock's current time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// timestampLayout is the spec's session/operation timestamp: UTC, microseconds.
const timestampLayout = "2006-01-02T15:04:05.000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timestampLayout) }
