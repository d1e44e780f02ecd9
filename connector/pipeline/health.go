package pipeline

import (
	"sync"
	"time"
)

// health counts consecutive retryable API failures. Past a threshold the
// pipeline stops fetching new records (back-pressure) until a probe call
// gets an answer, instead of burning every command's retry budget.
type health struct {
	mu         sync.Mutex
	threshold  int
	failures   int
	retryAfter time.Duration // largest Retry-After seen in the failing streak
}

func (h *health) success() {
	h.mu.Lock()
	h.failures, h.retryAfter = 0, 0
	h.mu.Unlock()
}

func (h *health) failure(retryAfter time.Duration) {
	h.mu.Lock()
	h.failures++
	h.retryAfter = max(h.retryAfter, retryAfter)
	h.mu.Unlock()
}

// unhealthy reports whether fetching should pause, and for at least how long
// the service asked us to stay away.
func (h *health) unhealthy() (bool, time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.threshold > 0 && h.failures >= h.threshold, h.retryAfter
}
