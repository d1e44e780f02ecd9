package ingress

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/sessionstate"
	"github.com/paysession/paysession/connector/sessionwriter"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/outbound"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/tracing/kafkatrace"
)

// webhook is a verified, parsed webhook with the API version to record.
type webhook struct {
	Type    string
	Session payapi.Session
	Version int
	// DroppedFields names secondary time fields that could not be read and
	// were left unset (payapi.Webhook.DroppedFields).
	DroppedFields []string
	// Project is the partner project whose path the webhook arrived at
	// (nil: the default project).
	Project *string
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

// Header keys set on the update record: the session writer copies them
// onto the sessions and webhook-events records.
const (
	HeaderEventID     = sessionwriter.HeaderEventID
	HeaderWebhookType = sessionwriter.HeaderWebhookType
)

// build returns the update record of a webhook: its session state (source
// webhook, naming the project of the path it arrived at), keyed by session
// id, with the event id and type as headers; without its operations'
// metadata when whole it would not fit the updates topic (Config.Sizer).
func (in *Ingress) build(ctx context.Context, wh *webhook, eventID string, received time.Time) (*kgo.Record, error) {
	state := sessionstate.FromAPI(&wh.Session, string(codec.SourceWebhook), received, wh.Version)
	typ := wh.Type
	state.WebhookType = &typ
	state.Project = wh.Project
	base := sessionwriter.Update(in.cfg.UpdatesTopic, wh.Session.ID, nil,
		kgo.RecordHeader{Key: HeaderEventID, Value: []byte(eventID)},
		kgo.RecordHeader{Key: HeaderWebhookType, Value: []byte(wh.Type)})
	base.Timestamp = received
	kafkatrace.Inject(ctx, base) // the webhook request's span (trace.go)
	r, err := in.cfg.Sizer.Fit(ctx, in.cfg.Encoder, *base, outbound.StateForms(state)...)
	if err == nil && r == nil {
		err = fmt.Errorf("session state too large for %s even without metadata", in.cfg.UpdatesTopic)
	}
	return r, err
}
