package pipeline

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/paysession/paysession/internal/payapi"
)

// callResult is the end of a command's attempts in this batch.
type callResult struct {
	session   *payapi.Session
	err       error
	attempts  int // including attempts of earlier batches
	first     time.Time
	last      time.Time
	sent      bool      // some attempt may have reached the service
	exhausted bool      // the retry budget ran out
	parkAt    time.Time // non-zero: stopped by the batch deadline; next attempt time
}

// call runs a command's API call with its idempotency key, retrying retryable
// errors with backoff until success, a final error, the budget's end, or the
// batch deadline (then the command is parked).
func (p *Pipeline) call(ctx context.Context, in *inbound, cmd *command) callResult {
	r := callResult{attempts: in.retry.attempts, first: in.retry.firstAttempt, sent: in.retry.sent}
	for {
		if err := p.acquire(ctx); err != nil {
			r.parkAt = p.clock.Now()
			return r
		}
		now := p.clock.Now()
		if r.first.IsZero() {
			r.first = now
		}
		r.attempts++
		if r.attempts > 1 { // in this batch, or resumed from the retry topic
			p.metrics.retries.WithLabelValues(cmd.Kind).Inc()
		}
		r.last = now
		started := time.Now()
		sess, err := cmd.call(in.traced(ctx), p.api, payapi.WithIdempotencyKey(in.key), payapi.WithTraceContext(traceContext(in.rec)))
		p.release()
		p.metrics.observeCall(cmd.Endpoint, err, time.Since(started))
		if err == nil {
			p.health.success()
			r.session, r.err = sess, nil
			return r
		}
		r.err = err
		var ae *payapi.Error
		errors.As(err, &ae)
		if ae != nil && ae.Sent {
			r.sent = true
		}
		if ctx.Err() != nil { // batch deadline or abort mid-call
			r.parkAt = p.clock.Now()
			return r
		}
		if !payapi.IsRetryable(err) {
			p.health.success() // the service answered
			return r
		}
		var retryAfter time.Duration
		if ae != nil {
			retryAfter = ae.RetryAfter
		}
		if retryAfter > p.cfg.Retry.Max {
			p.log.WarnContext(in.traced(ctx), "large Retry-After capped", slog.String("endpoint", cmd.Endpoint),
				slog.Duration("retry_after", retryAfter), slog.Duration("cap", p.cfg.Retry.Max))
		}
		p.health.failure(retryAfter)
		if p.backoff.exhausted(r.attempts, r.first, p.clock.Now()) {
			r.exhausted = true
			return r
		}
		wait := p.backoff.wait(r.attempts, retryAfter)
		next := p.clock.Now().Add(wait)
		if !p.waitUntil(ctx, next) {
			r.parkAt = next
			return r
		}
	}
}

// acquire takes an in-flight slot (and a rate-limit token when configured).
func (p *Pipeline) acquire(ctx context.Context) error {
	if p.limiter != nil {
		if err := p.limiter.wait(ctx); err != nil {
			return err
		}
	}
	select {
	case p.sem <- struct{}{}:
		p.metrics.inFlight.Inc()
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *Pipeline) release() {
	<-p.sem
	p.metrics.inFlight.Dec()
}
