package pipeline

import (
	"context"
	"errors"
	"fmt"
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
	attempts  int       // API attempts, earlier batches' included
	first     time.Time // first attempt (zero when never sent)
	last      time.Time // last attempt
	latency   time.Duration
	answer    answer          // what the service answered, when it accepted the command (api_response)
	polled    *payapi.Session // state from a settling status query (poll)
	park      *parking        // non-nil: moved to the retry topic, no result yet
}

// parking says a command goes to the retry topic instead of getting a result.
type parking struct {
	retry  retryState
	notDue bool // parked again only because its next attempt is past the deadline
}

// process is the data path of one command, read when it was polled
// (newBatch): key-lifetime guard → what read found → call the API with the
// key (retrying) → classify → outcome. The guard runs first: nothing about
// a command that is too old to send (not even a registry outage while
// decoding it) may hold it back.
func (p *Pipeline) process(ctx context.Context, in *inbound) *outcome {
	start := p.clock.Now()
	if p.keyTooOld(in, start) {
		return p.expired(ctx, in, start)
	}
	var (
		transient *transientError
		gone      *sourceGoneError
	)
	switch err := in.decodeErr; {
	case errors.As(err, &gone): // a parked command whose source is gone (parked.go)
		return p.sourceGone(ctx, in, start, gone)
	case errors.As(err, &transient) && in.retry.decodeFailures+1 >= p.cfg.DecodeFailureBudget:
		return p.undecodable(in, start, err)
	case errors.As(err, &transient): // schema registry unreachable: try later
		r := in.retry.with(start.Add(p.cfg.Retry.Max))
		r.decodeFailures++
		return park(in, r, false)
	case err != nil:
		return p.end(&outcome{in: in}, start, err, false, false) // invalid, dead-lettered
	case in.fromRetry && !p.waitUntil(ctx, in.retry.nextAttempt):
		return park(in, in.retry, true) // not due within this batch
	}
	cmd := in.cmd
	out := p.call(ctx, in, start)
	if out.park != nil { // cut by the batch deadline
		return out
	}
	// An indeterminate outcome, or an accepted one whose answer held no
	// session (the spec makes it optional), learns the session's state by
	// one status query. A command that creates a session has no id to ask
	// by: its state arrives by webhook.
	unknownState := out.verdict.Status == codec.StatusAccepted && out.answer.Session == nil && cmd.answersSession
	if (out.verdict.Status == codec.StatusIndeterminate || unknownState) && cmd.SessionID != "" {
		out.polled = p.settle(in.traced(ctx), cmd.SessionID, cmd.route...)
	}
	return out
}

// undecodable ends a command whose value could not be decoded because the
// schema registry kept failing (DecodeFailureBudget times): it is rejected
// and dead-lettered. Nothing was sent, so redriving it once the registry is
// back is safe.
func (p *Pipeline) undecodable(in *inbound, start time.Time, err error) *outcome {
	out := p.end(&outcome{in: in}, start, nil, false, false)
	out.verdict = verdict{Status: codec.StatusRejected, Code: "schema_registry_unavailable", deadLetter: true,
		Description: fmt.Sprintf("value not decodable after %d schema registry failures; not sent: %v", in.retry.decodeFailures+1, err)}
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

// expired is the outcome of a command past the key-lifetime margin; it is
// never sent now. It is "expired, not sent" only when the connector can
// prove no earlier attempt started (inbound.neverAttempted); otherwise an
// earlier, uncommitted run may have executed it, so it is indeterminate and,
// where the command names a session, one status query publishes the
// session's actual state beside it.
func (p *Pipeline) expired(ctx context.Context, in *inbound, start time.Time) *outcome {
	if !in.neverAttempted || in.retry.sent {
		out := p.end(&outcome{in: in, attempts: in.retry.attempts, first: in.retry.firstAttempt}, start,
			errKeyExpiredMaybeSent, true, true)
		if cmd := in.cmd; cmd != nil && cmd.SessionID != "" {
			out.polled = p.settle(in.traced(ctx), cmd.SessionID, cmd.route...)
		}
		return out
	}
	out := p.end(&outcome{in: in}, start, nil, false, false)
	out.verdict = verdict{Status: codec.StatusExpired, Code: "key_expired",
		Description: "record older than the key-lifetime margin; not sent"}
	return out
}

var errKeyExpiredMaybeSent = &payapi.Error{Code: "key_expired",
	Description: "key-lifetime margin reached; an earlier attempt may have reached the service (not proven otherwise), so the effect is unknown"}

// end gives a command's outcome its verdict (classify: the last API error,
// nil on success; whether the retry budget ran out; whether some attempt may
// have reached the service), its latency and the session it concerns: the
// one the answer (out.answer) named, else the command's.
func (p *Pipeline) end(out *outcome, start time.Time, err error, exhausted, sent bool) *outcome {
	out.verdict = classify(err, exhausted, sent)
	out.latency = p.clock.Now().Sub(start)
	out.sessionID = out.in.sessionID()
	if s := out.answer.Session; s != nil && s.ID != "" {
		out.sessionID = s.ID
	}
	return out
}

// keyTooOld is the key-lifetime guard: the service forgets a key after 24 h,
// so a command older than the margin must not be sent.
func (p *Pipeline) keyTooOld(in *inbound, now time.Time) bool {
	return in.age(now) > p.cfg.KeyLifetimeMargin
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
func (p *Pipeline) settle(ctx context.Context, sessionID string, route ...payapi.CallOption) *payapi.Session {
	if ctx.Err() != nil {
		return nil
	}
	s, err := p.api.Status(ctx, sessionID, route...)
	if err != nil {
		var ae *payapi.Error
		if !errors.As(err, &ae) || ae.Code != "repository_record_not_found" {
			p.log.WarnContext(ctx, "settling status query failed", slog.String("session_id", sessionID), slog.Any("error", err))
		}
		return nil
	}
	return s
}
