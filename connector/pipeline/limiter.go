package pipeline

import (
	"context"

	"golang.org/x/time/rate"
)

// limiter bounds API calls per second (optional): a token bucket from
// golang.org/x/time/rate.
type limiter struct{ *rate.Limiter }

// newLimiter returns a limiter of perSecond calls with burst, or nil when
// perSecond is not positive (no limit).
func newLimiter(perSecond float64, burst int) *limiter {
	if perSecond <= 0 {
		return nil
	}
	return &limiter{rate.NewLimiter(rate.Limit(perSecond), max(burst, 1))}
}

// wait blocks until a token is available or ctx ends (or cannot wait long
// enough for one).
func (l *limiter) wait(ctx context.Context) error { return l.Wait(ctx) }
