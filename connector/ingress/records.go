package ingress

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/sessionstate"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// Encoder encodes an outcome record for a topic (Avro, Confluent or
// single-object); *codec.Encoder is one.
type Encoder interface {
	Encode(ctx context.Context, topic string, rec codec.Record) ([]byte, error)
}

// webhook is a verified, parsed webhook with the API version to record.
type webhook struct {
	Type    string
	Session payapi.Session
	Version int
	// DroppedFields names secondary time fields that could not be read and
	// were left unset (payapi.Webhook.DroppedFields).
	DroppedFields []string
}

// parse parses a verified body strictly: type and session.id are required,
// added members and unknown types are kept.
func parse(body []byte, defaultVersion int) (*webhook, error) {
	wh, err := payapi.ParseWebhook(body)
	if err != nil {
		return nil, err
	}
	if wh.Session.ID == "" {
		return nil, fmt.Errorf("%w: session.id is missing", payapi.ErrMalformedWebhook)
	}
	v := wh.Version
	if v == 0 {
		v = defaultVersion
	}
	return &webhook{Type: wh.Type, Session: wh.Session, Version: v, DroppedFields: wh.DroppedFields}, nil
}

// Header keys set on the records the ingress produces.
const (
	HeaderEventID     = "paysession-event-id"
	HeaderWebhookType = "paysession-webhook-type"
)

// build returns the records of a webhook: always the webhook event, and
// the session state when the Tracker admits it. Callers hold the session's
// stripe lock.
func (in *Ingress) build(ctx context.Context, wh *webhook, eventID string, received time.Time) ([]*outRecord, error) {
	state := sessionstate.FromAPI(&wh.Session, string(codec.SourceWebhook), received, wh.Version)
	typ := wh.Type
	state.WebhookType = &typ
	event := &codec.WebhookEvent{
		EventID: eventID, Type: wh.Type, SessionID: wh.Session.ID,
		ReceivedAt: received.UTC(), APIVersion: int32(wh.Version), Session: state.Session,
	}
	headers := []kgo.RecordHeader{{Key: HeaderEventID, Value: []byte(eventID)}, {Key: HeaderWebhookType, Value: []byte(wh.Type)}}
	ev, err := in.cfg.Encoder.Encode(ctx, in.cfg.WebhookEventsTopic, event)
	if err != nil {
		return nil, fmt.Errorf("encode webhook event: %w", err)
	}
	recs := []*outRecord{{tmpl: kgo.Record{Topic: in.cfg.WebhookEventsTopic, Key: []byte(wh.Session.ID),
		Value: ev, Headers: headers, Timestamp: received}}}
	st, err := in.cfg.Encoder.Encode(ctx, in.cfg.SessionsTopic, state)
	if err != nil {
		return nil, fmt.Errorf("encode session state: %w", err)
	}
	v := sessionstate.VersionOf(state)
	if !in.cfg.Tracker.AdmitVersion(v) {
		in.metrics.states.WithLabelValues("stale").Inc()
		return recs, nil
	}
	in.metrics.states.WithLabelValues("published").Inc()
	return append(recs, &outRecord{state: &v, tmpl: kgo.Record{Topic: in.cfg.SessionsTopic,
		Key: []byte(wh.Session.ID), Value: st, Headers: headers, Timestamp: received}}), nil
}
