package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/sessionstate"
	"github.com/paysession/paysession/connector/sessionwriter"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/outbound"
	"github.com/paysession/paysession/internal/payapi"
)

// Header keys of a deadline warning: the state is published again with
// them when a session still waits for confirmation WarnBefore its deadline.
const (
	HeaderWarning          = "paysession-warning"
	HeaderConfirmDeadline  = "paysession-confirm-deadline" // RFC 3339, UTC
	WarningConfirmDeadline = "confirm_deadline"
)

// The stale marker: a session older than Config.MaxAge that never settled
// has its last known state published once more with these headers, and is
// no longer polled. The record's value is an ordinary session state (no
// schema change); HeaderAgeFrom tells what its age counts from.
const (
	WarningStale  = "stale"
	HeaderAgeFrom = "paysession-age-from" // RFC 3339, UTC
)

// route returns the call options of the task's session: its partner
// project, when one is known (a session is found under its own project
// only); none for the default project.
func (t task) route() []payapi.CallOption {
	if t.project == nil {
		return nil
	}
	return []payapi.CallOption{payapi.WithProject(*t.project)}
}

// IsStaleMarker reports whether a sessions record carries the stale marker.
func IsStaleMarker(headers []kgo.RecordHeader) bool {
	for _, h := range headers {
		if h.Key == HeaderWarning && string(h.Value) == WarningStale {
			return true
		}
	}
	return false
}

// run performs one task and tells the pending set whether it learned
// something new.
func (r *Reconciler) run(ctx context.Context, t task) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.CallTimeout)
	defer cancel()
	ctx, span := startTaskSpan(ctx, t)
	log := r.log.With(slog.String("session_id", t.id))
	var learned bool
	var err error
	switch t.act {
	case actConfirm:
		learned, err = r.confirm(ctx, t)
	case actStale:
		learned, err = r.markStale(ctx, t)
	default:
		learned, err = r.poll(ctx, t)
	}
	if err != nil {
		log.WarnContext(ctx, "reconcile call failed", slog.Int("action", int(t.act)), slog.Any("error", err))
	}
	endTaskSpan(span, learned, err)
	r.pending.done(t, r.cfg.Now(), learned, r.backoff)
}

// poll fetches the session's state and publishes it when it is newer; a
// warning task publishes it in any case, with the deadline headers.
func (r *Reconciler) poll(ctx context.Context, t task) (bool, error) {
	s, err := r.status(ctx, t)
	if err != nil {
		return false, err
	}
	return r.publishPolled(ctx, t, s)
}

// status calls session/status under the session's project; a session the
// service does not know is forgotten.
func (r *Reconciler) status(ctx context.Context, t task) (*payapi.Session, error) {
	s, err := r.cfg.API.Status(ctx, t.id, t.route()...)
	if err != nil {
		var perr *payapi.Error
		if errors.As(err, &perr) && perr.Code == payapi.CodeRecordNotFound {
			r.metrics.polls.WithLabelValues("not_found").Inc()
			r.pending.remove(t.id)
			return nil, fmt.Errorf("session unknown to the service, no longer polled: %w", err)
		}
		r.metrics.polls.WithLabelValues("error").Inc()
		return nil, fmt.Errorf("status: %w", err)
	}
	return s, nil
}

// publishPolled publishes what session/status answered when it is newer;
// a warning task publishes it in any case, with the deadline headers.
func (r *Reconciler) publishPolled(ctx context.Context, t task, s *payapi.Session) (bool, error) {
	st := sessionstate.FromAPI(s, string(codec.SourcePoll), r.cfg.Now(), r.cfg.APIVersion)
	var headers []kgo.RecordHeader
	warn := t.act == actWarn && WaitsForConfirm(&st.Session)
	if warn {
		headers = []kgo.RecordHeader{
			{Key: HeaderWarning, Value: []byte(WarningConfirmDeadline)},
			{Key: HeaderConfirmDeadline, Value: []byte(t.deadline.UTC().Format(time.RFC3339))},
		}
	}
	published, err := r.publish(ctx, t, st, warn, headers)
	if err != nil {
		r.metrics.polls.WithLabelValues("error").Inc()
		return false, err
	}
	if warn {
		r.metrics.warnings.Inc()
		r.log.WarnContext(ctx, "session still waits for confirmation close to its deadline", slog.String("session_id", t.id),
			slog.Time("deadline", t.deadline))
	}
	if !published {
		r.metrics.polls.WithLabelValues("unchanged").Inc()
		return false, nil
	}
	r.metrics.polls.WithLabelValues("changed").Inc()
	return true, nil
}

// markStale publishes the session's last known state again with the stale
// marker, without calling the API. It reports whether the marker is on the
// topic; when a newer state was published meanwhile it is not, and the
// session comes due again with that state.
func (r *Reconciler) markStale(ctx context.Context, t task) (bool, error) {
	headers := []kgo.RecordHeader{
		{Key: HeaderWarning, Value: []byte(WarningStale)},
		{Key: HeaderAgeFrom, Value: []byte(t.born.UTC().Format(time.RFC3339))},
	}
	published, err := r.publish(ctx, t, t.state, true, headers)
	if err != nil || !published {
		return false, err
	}
	r.metrics.stale.Inc()
	r.log.WarnContext(ctx, "session never settled, no longer polled", slog.String("session_id", t.id),
		slog.String("status", t.state.Session.Status), slog.Time("age_from", t.born), slog.Duration("max_age", r.cfg.MaxAge))
	return true, nil
}

// publish proposes st to the session writer when it is newer than the
// state read from the sessions topic (or, with force, when it is at least
// as new: the writer then writes it again, with headers) and records it in
// the pending set once Kafka took it. The update is sized by Config.Sizer:
// without its operations' metadata when whole it would not fit the
// updates topic, not at all (and not recorded) when even that would not. The state names the session's
// project, so the topic keeps it for the next reader.
func (r *Reconciler) publish(ctx context.Context, t task, st *codec.SessionState, force bool, headers []kgo.RecordHeader) (bool, error) {
	if st.Project == nil && t.project != nil {
		named := *st
		named.Project = t.project
		st = &named
	}
	v := codec.VersionOf(st)
	if t.state != nil && !codec.Newer(v, codec.VersionOf(t.state)) &&
		(!force || codec.Newer(codec.VersionOf(t.state), v)) {
		return false, nil
	}
	if force {
		headers = append(headers, kgo.RecordHeader{Key: sessionwriter.HeaderRepublish, Value: []byte("1")})
	}
	rec, err := r.cfg.Sizer.Fit(ctx, r.cfg.Encoder, *sessionwriter.Update(r.cfg.UpdatesTopic, t.id, nil, headers...), outbound.StateForms(st)...)
	if err != nil {
		return false, fmt.Errorf("session state: %w", err)
	}
	if rec == nil {
		return false, nil // too large even without metadata: counted and logged; a later state may fit
	}
	done := make(chan error, 1)
	r.cfg.Producer.TryProduce(ctx, rec, func(_ *kgo.Record, err error) { done <- err })
	if err := <-done; err != nil {
		r.cfg.Sizer.Refused(err)
		return false, fmt.Errorf("publish session state: %w", err)
	}
	r.pending.apply(st, t.partition, rec.Timestamp) // stamped by the producer; the writer keeps the stamp
	return true, nil
}
