package sessionwriter

import (
	"github.com/twmb/franz-go/pkg/kgo"
)

// Header keys of an update record. The first two are copied onto what the
// writer derives from it; HeaderRepublish is the writer's own and is not.
const (
	// HeaderEventID carries a webhook's event id (ingress.EventID): the
	// writer also derives a webhook event, once per event id.
	HeaderEventID = "paysession-event-id"
	// HeaderWebhookType carries the webhook's type.
	HeaderWebhookType = "paysession-webhook-type"
	// HeaderRepublish, with any value, asks that the state be written even
	// when it is only as new as the last one (never when it is older): the
	// reconciler's deadline warning and stale marker re-send a known state
	// with their own headers.
	HeaderRepublish = "paysession-republish"
)

// Update returns the update record proposing the encoded session state
// value for session id. headers are carried onto the sessions record.
func Update(topic, sessionID string, value []byte, headers ...kgo.RecordHeader) *kgo.Record {
	return &kgo.Record{Topic: topic, Key: []byte(sessionID), Value: value, Headers: headers}
}

// carried returns r's headers without the writer's own.
func carried(r *kgo.Record) []kgo.RecordHeader {
	out := make([]kgo.RecordHeader, 0, len(r.Headers))
	for _, h := range r.Headers {
		if h.Key != HeaderRepublish && h.Key != HeaderOrigin {
			out = append(out, h)
		}
	}
	return out
}

// HeaderOrigin, on an update, names the part that proposed it; the
// pipeline sets OriginCommand. The writer keeps, per session, the trace
// context of the last update from a command, and continues that trace when
// it writes a state a webhook or a poll proposed (trace.go). It is the
// writer's own and is not copied onto what it writes.
const (
	HeaderOrigin  = "paysession-origin"
	OriginCommand = "command"
)

// FromCommand is the header the pipeline puts on its updates.
func FromCommand() kgo.RecordHeader {
	return kgo.RecordHeader{Key: HeaderOrigin, Value: []byte(OriginCommand)}
}
