package pipeline

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/paysession/paysession/internal/kafka"
	"github.com/paysession/paysession/internal/payapi"
)

// probeSessionID names a session that does not exist: a probe only asks
// whether the service answers at all (repository_record_not_found is an
// answer).
const probeSessionID = "ps_0"

// maxProbeWait caps how long a Retry-After may keep fetching paused before
// the next probe: the service's value counts up to a minute.
const maxProbeWait = time.Minute

// awaitHealthy pauses fetching while the API keeps failing and probes it
// until it answers; it returns false if ctx ended first.
func (p *Pipeline) awaitHealthy(ctx context.Context, s *kafka.TxnSession) bool {
	bad, retryAfter := p.health.unhealthy()
	if !bad {
		return true
	}
	s.Client().PauseFetchTopics(p.topics...)
	defer p.resumeFetch(s.Client(), p.topics...) // but what an operator paused
	p.metrics.paused.Set(1)
	defer p.metrics.paused.Set(0)
	p.log.Warn("api failing; paused fetching", slog.Int("threshold", p.cfg.PauseAfterFailures))
	for {
		wait := p.probeWait(retryAfter)
		select {
		case <-ctx.Done():
			return false
		case <-p.clock.After(wait):
		}
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := p.api.Status(pctx, probeSessionID)
		cancel()
		if err == nil || !payapi.IsRetryable(err) {
			p.health.success()
			p.log.Info("api answers again; resumed fetching")
			return true
		}
		var ae *payapi.Error
		if errors.As(err, &ae) {
			retryAfter = ae.RetryAfter
		}
	}
}

// probeWait is the wait before the next probe: ProbeInterval, or the
// service's Retry-After when larger, up to maxProbeWait (a Retry-After of a
// day must not pause fetching for a day).
func (p *Pipeline) probeWait(retryAfter time.Duration) time.Duration {
	if retryAfter > maxProbeWait {
		p.log.Warn("large Retry-After capped for the pause probe", slog.Duration("retry_after", retryAfter),
			slog.Duration("cap", maxProbeWait))
	}
	return max(p.cfg.ProbeInterval, min(retryAfter, maxProbeWait))
}
