package sessionwriter

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
	"github.com/paysession/paysession/internal/outbound"
)

// Results of paysession_session_writer_updates_total.
const (
	resultWritten     = "written"     // newer than the last state: written
	resultRepublished = "republished" // as new, with HeaderRepublish: written again
	resultOlder       = "older"       // not newer: dropped
	resultStale       = "stale"       // a session not remembered, updated before the horizon: dropped
	resultUnreadable  = "unreadable"  // not a session state: dropped
	resultTooLarge    = "too_large"   // newer, but too large for the sessions topic even lean: dropped
)

// derived is what one update record turns into.
type derived struct {
	state  *kgo.Record // nil when the state is not newer
	event  *kgo.Record // nil without an event id, or when the id was written
	result string      // one of the result constants
	dupe   bool        // it carried an event id already written
	// staleEvent: it carried an event id, and its state was updated before
	// the horizon (a replay): no event is written.
	staleEvent bool
}

// eventIDOf returns the event id a record carries (HeaderEventID), or ""
// when it carries none: an update from anything but a webhook, or a
// sessions record.
func eventIDOf(rec *kgo.Record) string {
	id, _ := header.Get(rec, HeaderEventID)
	return id
}

// cutoffs are the bounds of what the writer remembers at one moment.
type cutoffs struct {
	now    time.Time
	forget int64 // Unix ms: a session whose last state was written before is forgotten
	events int64 // Unix ms: an event id written before is forgotten
	// replays: a webhook whose state was updated before, and is not newer
	// than the session's last state, is a replay (replayed).
	replays time.Time
}

func (w *Writer) cutoffs() cutoffs {
	now := w.cfg.Clock()
	return cutoffs{now: now, forget: codec.ForgetBefore(now, w.cfg.Horizon).UnixMilli(),
		events: now.Add(-w.cfg.EventWindow).UnixMilli(), replays: now.Add(-w.cfg.EventWindow + codec.ClockAllowance)}
}

// replayed reports whether a webhook whose event id is not among those
// written in the event window is a replay of one older than the window:
// the writer already holds a state of its session at least as new, and
// its updated_at is older than the window less the clock allowance. Had
// it been written, it was written at most ClockAllowance before its
// updated_at (the service stamps a state before sending it), so within
// the window its id would still be remembered. A webhook the service
// sends, and resends for 30 minutes, is younger than that: only a replay
// (a captured webhook sent again) is this old. A webhook within the window
// that is older than the session's last state (a late first delivery) is
// still written: its id tells it from a replay.
func replayed(v codec.SessionVersion, known bool, last remembered, at cutoffs) bool {
	return known && !v.Stamp().Newer(last.stamp) && v.UpdatedAt.Before(at.replays)
}

// derive decides what update rec (of partition p, whose index is part)
// writes, and records it in the index through j. The records it returns go
// to partition rec.Partition of the sessions and webhook-events topics.
//
// A state of a session the writer does not remember (never seen, or quiet
// beyond the horizon) is written only when its updated_at is within the
// horizon; an older one is stale. A webhook whose state was updated before
// the horizon is a replay, of any session: its event is not written; so is
// one updated before the event window that is not newer than the
// session's last state (replayed).
func (w *Writer) derive(ctx context.Context, rec *kgo.Record, part *partition, j *journal, at cutoffs) (derived, error) {
	var st codec.SessionState
	if err := w.cfg.Decoder.DecodeRecord(ctx, rec.Value, &st); err != nil || st.Session.ID == "" {
		return derived{result: resultUnreadable}, nil
	}
	v := codec.VersionOf(&st)
	last, known := part.version(st.Session.ID, at.forget)
	within := codec.WithinHorizon(v.UpdatedAt, at.now, w.cfg.Horizon)
	if !known && !within {
		w.stale(rec, v, at.now)
		return derived{result: resultStale, staleEvent: eventIDOf(rec) != ""}, nil
	}
	var d derived
	if id := eventIDOf(rec); id != "" {
		switch {
		case part.events.seen(id, at.events):
			d.dupe = true
		case !within, replayed(v, known, last, at):
			// The service resends a webhook for 30 minutes: one updated
			// before the horizon, or before the event window and not
			// newer than the session's last state, is a replay, whatever
			// its event id.
			d.staleEvent = true
		default:
			ev, err := w.event(ctx, rec, &st, id)
			if err != nil {
				return derived{}, err
			}
			if d.event = ev; ev != nil { // nil: too large even lean (counted, logged)
				j.addEvent(part, id, rec.Timestamp.UnixMilli())
			}
		}
	}
	_, republish := header.Get(rec, HeaderRepublish)
	switch stamp := v.Stamp(); {
	case !known || stamp.Newer(last.stamp):
		d.result = resultWritten
	case republish && !last.stamp.Newer(stamp):
		d.result = resultRepublished
	default:
		d.result = resultOlder
		w.traceWrite(rec, &st, part, j, d)
		return d, nil
	}
	state, err := w.sizer.Fit(ctx, w.cfg.Encoder, kgo.Record{Topic: w.cfg.SessionsTopic, Partition: rec.Partition,
		Key: rec.Key, Headers: carried(rec), Timestamp: rec.Timestamp}, stateForms(rec, &st)...)
	if err != nil {
		return derived{}, err
	}
	if state == nil {
		// Not written, so not remembered: an as-new republish may still be.
		d.result = resultTooLarge
		return d, nil
	}
	j.setVersion(part, st.Session.ID, stampOf(v, rec.Timestamp, w.projects.refOf(st.Project).carried(last.project)))
	d.state = state
	w.traceWrite(rec, &st, part, j, d)
	return d, nil
}

// stateForms are the forms of the sessions record an update writes: the
// update's value as it is (already without metadata when its own topic
// needed that, saying so in a header it carries), then the state without
// its operations' metadata (outbound.StateForms), for a sessions topic
// whose limit is below the updates topic's.
func stateForms(rec *kgo.Record, st *codec.SessionState) []outbound.Form {
	forms := outbound.StateForms(st)
	forms[0] = outbound.Form{Raw: rec.Value}
	return forms
}

// stale logs a dropped stale update, once per session within an hour (at
// most staleLogMax sessions are remembered for it).
func (w *Writer) stale(rec *kgo.Record, v codec.SessionVersion, now time.Time) {
	if _, first := w.staleLogged.GetOrAdd(v.SessionID, now, func() struct{} { return struct{}{} }); !first {
		return
	}
	w.log.Warn("session writer drops a stale update: the session is not remembered and the state was updated before the horizon",
		slog.String("session_id", v.SessionID), slog.Time("updated_at", v.UpdatedAt), slog.Duration("horizon", w.cfg.Horizon),
		slog.Int("partition", int(rec.Partition)), slog.Int64("offset", rec.Offset))
}

// Bounds of the stale log's memory of sessions already logged.
const (
	staleLogMax   = 10000
	staleLogEvery = time.Hour
)

// event builds the webhook-events record of a webhook's update, in the
// first of its forms that fits the events topic (outbound.EventForms); nil
// when none does.
func (w *Writer) event(ctx context.Context, rec *kgo.Record, st *codec.SessionState, id string) (*kgo.Record, error) {
	typ := ""
	if st.WebhookType != nil {
		typ = *st.WebhookType
	}
	ev := &codec.WebhookEvent{EventID: id, Type: typ, SessionID: st.Session.ID,
		ReceivedAt: st.ObservedAt, APIVersion: st.APIVersion, Session: st.Session}
	r, err := w.sizer.Fit(ctx, w.cfg.Encoder, kgo.Record{Topic: w.cfg.EventsTopic, Partition: rec.Partition, Key: rec.Key,
		Headers: carried(rec), Timestamp: rec.Timestamp}, outbound.EventForms(ev)...)
	if err != nil {
		return nil, fmt.Errorf("webhook event: %w", err)
	}
	return r, nil
}
