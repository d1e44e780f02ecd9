package pipeline

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// outcome is what the data path decided for one command; the batch turns it
// into records (result, session states, dead letter, or a retry record).
type outcome struct {
	in        *inbound
	verdict   verdict
	sessionID string
	attempts  int
	first     time.Time // first attempt (zero when never sent)
	last      time.Time // last attempt
	latency   time.Duration
	session   *payapi.Session // state learned from the response (api_response)
	polled    *payapi.Session // state from a settling status query (poll)
	park      *parking        // non-nil: moved to the retry topic, no result yet
}

// parking says a command goes to the retry topic instead of getting a result.
type parking struct {
	retry  retryState
	notDue bool // parked again only because its next attempt is past the deadline
}

// process is the data path of one command: decode → validate → key-lifetime
// guard → call the API with the key (retrying) → classify → outcome.
func (p *Pipeline) process(ctx context.Context, in *inbound) *outcome {
	start := p.clock.Now()
	cmd, err := p.decode(ctx, in) // decode and validate (memoized: the lane needed the session id)
	var transient *transientError
	switch {
	case errors.As(err, &transient): // schema registry unreachable: try later
		return park(in, in.retry.with(start.Add(p.cfg.Retry.Max)), false)
	case err != nil:
		return p.finish(in, start, callResult{err: err}) // invalid, dead-lettered
	case p.keyTooOld(in, start):
		return p.expired(in, start)
	case in.fromRetry && !p.waitUntil(ctx, in.retry.nextAttempt):
		return park(in, in.retry, true) // not due within this batch
	}
	res := p.call(ctx, in, cmd)
	if !res.parkAt.IsZero() { // cut by the batch deadline
		return park(in, retryState{attempts: res.attempts, firstAttempt: res.first, nextAttempt: res.parkAt, sent: res.sent}, false)
	}
	out := p.finish(in, start, res)
	if out.verdict.Status == codec.StatusIndeterminate && cmd.SessionID != "" {
		out.polled = p.settle(ctx, cmd.SessionID)
	}
	return out
}

// park moves a command to the retry topic.
func park(in *inbound, r retryState, notDue bool) *outcome {
	return &outcome{in: in, sessionID: in.sessionID(), park: &parking{retry: r, notDue: notDue}}
}

// with returns the state with another next-attempt time.
func (r retryState) with(next time.Time) retryState {
	r.nextAttempt = next
	return r
}

// expired is the outcome of a command past the key-lifetime margin. If an
// earlier attempt may have reached the service, replaying now could execute
// it twice, so the outcome is indeterminate instead.
func (p *Pipeline) expired(in *inbound, start time.Time) *outcome {
	if in.retry.sent {
		return p.finish(in, start, callResult{err: errKeyExpiredAfterSend, exhausted: true, sent: true,
			attempts: in.retry.attempts, first: in.retry.firstAttempt})
	}
	out := p.finish(in, start, callResult{})
	out.verdict = verdict{Status: codec.StatusExpired, Code: "key_expired",
		Description: "record older than the key-lifetime margin; not sent"}
	return out
}

var errKeyExpiredAfterSend = &payapi.Error{Code: "key_expired",
	Description: "key lifetime margin reached after an attempt whose effect is unknown"}

// finish classifies a call result into an outcome.
func (p *Pipeline) finish(in *inbound, start time.Time, res callResult) *outcome {
	out := &outcome{
		in:       in,
		verdict:  classify(res.err, res.exhausted, res.sent),
		attempts: res.attempts,
		first:    res.first,
		last:     res.last,
		latency:  p.clock.Now().Sub(start),
		session:  res.session,
	}
	if in.cmd != nil {
		out.sessionID = in.cmd.SessionID
	}
	if res.session != nil && res.session.ID != "" {
		out.sessionID = res.session.ID
	}
	return out
}

// keyTooOld is the key-lifetime guard: the service forgets a key after 24 h,
// so a command recorded longer ago than the margin must not be sent.
func (p *Pipeline) keyTooOld(in *inbound, now time.Time) bool {
	return !in.recordTime.IsZero() && now.Sub(in.recordTime) > p.cfg.KeyLifetimeMargin
}

// waitUntil waits for t unless t lies past the batch deadline or the batch
// ends first; it reports whether t was reached.
func (p *Pipeline) waitUntil(ctx context.Context, t time.Time) bool {
	d := t.Sub(p.clock.Now())
	if d <= 0 {
		return ctx.Err() == nil
	}
	if dl, ok := ctx.Deadline(); ok && time.Now().Add(d).After(dl) {
		return false
	}
	select {
	case <-p.clock.After(d):
		return ctx.Err() == nil
	case <-ctx.Done():
		return false
	}
}

// settle asks the service once for the session's state after an
// indeterminate outcome, so downstream sees what actually happened.
func (p *Pipeline) settle(ctx context.Context, sessionID string) *payapi.Session {
	if ctx.Err() != nil {
		return nil
	}
	s, err := p.api.Status(ctx, sessionID)
	if err != nil {
		var ae *payapi.Error
		if !errors.As(err, &ae) || ae.Code != "repository_record_not_found" {
			p.log.Warn("settling status query failed", slog.String("session_id", sessionID), slog.Any("error", err))
		}
		return nil
	}
	return s
}
