package pipeline

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/paysession/paysession/internal/payapi"
)

// call runs a command's API call with its idempotency key, retrying retryable
// errors with backoff until success, a final error, the budget's end (then
// the outcome is ended: end) or the batch deadline (then the command is
// parked, keeping its attempt history).
func (p *Pipeline) call(ctx context.Context, in *inbound, start time.Time) *outcome {
	cmd := in.cmd
	out := &outcome{in: in, attempts: in.retry.attempts, first: in.retry.firstAttempt}
	sent := in.retry.sent
	parkAt := func(next time.Time) *outcome {
		return park(in, retryState{attempts: out.attempts, firstAttempt: out.first, nextAttempt: next, sent: sent}, false)
	}
	for {
		if err := p.acquire(ctx); err != nil {
			return parkAt(p.clock.Now())
		}
		now := p.clock.Now()
		if out.first.IsZero() {
			out.first = now
		}
		out.attempts++
		if out.attempts > 1 { // in this batch, or resumed from the retry topic
			p.metrics.retries.WithLabelValues(cmd.Kind).Inc()
		}
		out.last = now
		started := time.Now()
		ans, err := cmd.send(in.traced(ctx), p.api, payapi.WithIdempotencyKey(in.key), payapi.WithTraceContext(traceContext(in.rec)))
		p.release()
		p.metrics.observeCall(cmd.Endpoint, err, time.Since(started))
		if err == nil {
			p.health.success()
			out.answer = ans
			return p.end(out, start, nil, false, sent)
		}
		var ae *payapi.Error
		errors.As(err, &ae)
		if ae != nil && ae.Sent {
			sent = true
		}
		if ctx.Err() != nil { // batch deadline or abort mid-call
			return parkAt(p.clock.Now())
		}
		if !payapi.IsRetryable(err) {
			p.health.success() // the service answered
			return p.end(out, start, err, false, sent)
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
		if p.backoff.exhausted(out.attempts, out.first, p.clock.Now()) {
			return p.end(out, start, err, true, sent)
		}
		next := p.clock.Now().Add(p.backoff.wait(out.attempts, retryAfter))
		if !p.retryWait(ctx, next) {
			return parkAt(next)
		}
	}
}

// retryWait is waitUntil for a command's next attempt, counted in
// Status's retrying meanwhile.
func (p *Pipeline) retryWait(ctx context.Context, next time.Time) bool {
	p.retrying.Add(1)
	defer p.retrying.Add(-1)
	return p.waitUntil(ctx, next)
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
