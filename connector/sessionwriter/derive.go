package sessionwriter

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/sessionstate"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
)

// Results of paysession_session_writer_updates_total.
const (
	resultWritten     = "written"     // newer than the last state: written
	resultRepublished = "republished" // as new, with HeaderRepublish: written again
	resultOlder       = "older"       // not newer: dropped
	resultUnreadable  = "unreadable"  // not a session state: dropped
)

// derived is what one update record turns into.
type derived struct {
	state  *kgo.Record // nil when the state is not newer
	event  *kgo.Record // nil without an event id, or when the id was written
	result string      // one of the result constants
	dupe   bool        // it carried an event id already written
}

// derive decides what update rec (of partition p, whose index is part)
// writes, and records it in the index through j. The records it returns go
// to partition rec.Partition of the sessions and webhook-events topics.
func (w *Writer) derive(ctx context.Context, rec *kgo.Record, part *partition, j *journal) (derived, error) {
	var st codec.SessionState
	if err := w.cfg.Decoder.DecodeRecord(ctx, rec.Value, &st); err != nil || st.Session.ID == "" {
		return derived{result: resultUnreadable}, nil
	}
	var d derived
	if id, ok := header.Get(rec, HeaderEventID); ok && id != "" {
		if _, seen := part.events[id]; seen {
			d.dupe = true
		} else {
			ev, err := w.event(ctx, rec, &st, id)
			if err != nil {
				return derived{}, err
			}
			d.event = ev
			j.addEvent(part, id, rec.Timestamp)
		}
	}
	v := sessionstate.VersionOf(&st)
	last, known := part.versions[st.Session.ID]
	_, republish := header.Get(rec, HeaderRepublish)
	switch {
	case !known || sessionstate.Newer(v, last):
		d.result = resultWritten
	case republish && !sessionstate.Newer(last, v):
		d.result = resultRepublished
	default:
		d.result = resultOlder
		w.traceWrite(rec, &st, part, j, d)
		return d, nil
	}
	j.setVersion(part, st.Session.ID, v)
	d.state = &kgo.Record{Topic: w.cfg.SessionsTopic, Partition: rec.Partition, Key: rec.Key,
		Value: rec.Value, Headers: carried(rec), Timestamp: rec.Timestamp}
	w.traceWrite(rec, &st, part, j, d)
	return d, nil
}

// event builds the webhook-events record of a webhook's update.
func (w *Writer) event(ctx context.Context, rec *kgo.Record, st *codec.SessionState, id string) (*kgo.Record, error) {
	typ := ""
	if st.WebhookType != nil {
		typ = *st.WebhookType
	}
	ev := &codec.WebhookEvent{EventID: id, Type: typ, SessionID: st.Session.ID,
		ReceivedAt: st.ObservedAt, APIVersion: st.APIVersion, Session: st.Session}
	val, err := w.cfg.Encoder.Encode(ctx, w.cfg.EventsTopic, ev)
	if err != nil {
		return nil, fmt.Errorf("encode webhook event: %w", err)
	}
	return &kgo.Record{Topic: w.cfg.EventsTopic, Partition: rec.Partition, Key: rec.Key, Value: val,
		Headers: carried(rec), Timestamp: rec.Timestamp}, nil
}
