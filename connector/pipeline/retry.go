package pipeline

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/paysession/paysession/internal/retry"
)

// RetryPolicy bounds how a command retries retryable API errors: exponential
// backoff with full jitter, Retry-After honoured, under a budget of attempts
// and elapsed time counted from the first attempt (across parking).
type RetryPolicy struct {
	// Initial is the first backoff ceiling (default 100ms).
	Initial time.Duration
	// Max caps one backoff (default 5s). Keep it under BatchDeadline so a
	// parked command is usually due again within the next batch.
	Max time.Duration
	// MaxAttempts is the most API attempts per command (default 8).
	MaxAttempts int
	// Budget is the most time from the first attempt to giving up (default 2m).
	Budget time.Duration
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.Initial <= 0 {
		p.Initial = 100 * time.Millisecond
	}
	if p.Max <= 0 {
		p.Max = 5 * time.Second
	}
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 8
	}
	if p.Budget <= 0 {
		p.Budget = 2 * time.Minute
	}
	return p
}

func (p RetryPolicy) validate() error {
	var errs []error
	if p.Initial > p.Max {
		errs = append(errs, fmt.Errorf("%s: must not exceed Retry.Max", "Retry.Initial"))
	}
	return errors.Join(errs...)
}

// backoff computes retry waits. It is safe for concurrent use; the jitter
// source is seeded so tests are reproducible.
type backoff struct {
	policy RetryPolicy
	mu     sync.Mutex
	rnd    *rand.Rand
}

func newBackoff(p RetryPolicy, seed uint64) *backoff {
	return &backoff{policy: p, rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// wait returns how long to wait after the given number of attempts: a
// uniformly random duration in [0, min(Max, Initial·2^(attempts-1))] (full
// jitter), but never less than the server's Retry-After, which itself counts
// only up to Max (a Retry-After of a day must not hold a command for a day:
// its budget decides when to give up).
func (b *backoff) wait(attempts int, retryAfter time.Duration) time.Duration {
	ceil := retry.Doubling{Initial: b.policy.Initial, Max: b.policy.Max}.After(attempts - 1)
	b.mu.Lock()
	d := time.Duration(b.rnd.Int64N(int64(ceil) + 1))
	b.mu.Unlock()
	return max(d, min(retryAfter, b.policy.Max))
}

// exhausted reports whether the budget allows no further attempt.
func (b *backoff) exhausted(attempts int, first, now time.Time) bool {
	return attempts >= b.policy.MaxAttempts || (!first.IsZero() && now.Sub(first) >= b.policy.Budget)
}
