package sessionwriter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/outbound"
)

// Decoder decodes an outcome record of either encoding; *codec.Decoder is
// one.
type Decoder interface {
	DecodeRecord(ctx context.Context, value []byte, v codec.Record) error
}

// Config configures a Writer. Zero durations take the defaults shown.
type Config struct {
	// Kafka are the client options (seed brokers, TLS, SASL). Required.
	Kafka []kgo.Opt
	// ClientHooks, when set, returns hooks for each transactional client
	// built (one per session; a client's metrics are unregistered when it
	// closes).
	ClientHooks func() []kgo.Hook
	// GroupID is the writer's consumer group on UpdatesTopic. Required.
	GroupID string
	// TransactionalID is this replica's transactional id; it must differ
	// from every other transactional id of the cluster and stay the same
	// across the replica's restarts. Required.
	TransactionalID string
	// TransactionTimeout is the Kafka transaction timeout. Default 30s.
	TransactionTimeout time.Duration
	// UpdatesTopic, SessionsTopic and EventsTopic name the three topics.
	// Required; they must have the same number of partitions.
	UpdatesTopic, SessionsTopic, EventsTopic string
	// EventWindow is how long an event id is remembered: a webhook event
	// with an id written within it is not written again. Default 24h.
	EventWindow time.Duration
	// Horizon is how long a session is remembered after its last state
	// was written (codec's horizon: a takeover reads only that much
	// of the sessions topic, plus codec.ClockAllowance). A state of
	// a session not remembered is written when its updated_at is within
	// the horizon and dropped as stale when it is older. Default
	// codec.DefaultHorizon (7 days).
	Horizon time.Duration
	// CommitInterval is the least time from the start of one transaction
	// to the start of the next: updates that arrive meanwhile wait and
	// share the next transaction, so the broker runs at most one writer
	// transaction per interval instead of one per update (Kafka Streams'
	// commit.interval.ms under exactly-once, 100 ms, is the same trade).
	// The sessions and webhook-events topics then trail their updates by
	// up to this. 0: a transaction per poll.
	CommitInterval time.Duration
	// After is the timer of CommitInterval. Default time.After.
	After func(time.Duration) <-chan time.Time
	// Sizer checks the records the writer derives against what the
	// sessions and webhook-events topics accept (one shared by the
	// connector's writers, over topics.Live): a record that would not fit
	// is written without its operations' metadata, or not at all (counted,
	// logged), and the producer's batch caps follow each topic's
	// max.message.bytes, pinned when the Kafka session is built; a session
	// whose pinned limits no longer match is rebuilt between two
	// transactions (limits.go). Default: Kafka's default limit for every
	// topic.
	Sizer *outbound.Sizer
	// Decoder decodes update records and, on a takeover, sessions records.
	// Required.
	Decoder Decoder
	// Encoder encodes webhook events. Required.
	Encoder outbound.Encoder
	// Clock is the time source. Default time.Now.
	Clock func() time.Time
	// Logger. Default slog.Default().
	Logger *slog.Logger
	// Registerer receives the metrics; nil registers nothing.
	Registerer prometheus.Registerer
}

func (c *Config) defaults() {
	if c.TransactionTimeout == 0 {
		c.TransactionTimeout = 30 * time.Second
	}
	if c.EventWindow == 0 {
		c.EventWindow = 24 * time.Hour
	}
	if c.Horizon == 0 {
		c.Horizon = codec.DefaultHorizon
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.After == nil {
		c.After = time.After
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Sizer == nil {
		c.Sizer, _ = outbound.NewSizer(nil, nil, c.Logger) // registers nothing: cannot fail
	}
}

// Validate reports every invalid field at once.
func (c Config) Validate() error {
	var errs []error
	req := func(ok bool, field string) {
		if !ok {
			errs = append(errs, fmt.Errorf("%s: required", field))
		}
	}
	req(len(c.Kafka) > 0, "Kafka")
	req(c.GroupID != "", "GroupID")
	req(c.TransactionalID != "", "TransactionalID")
	req(c.UpdatesTopic != "", "UpdatesTopic")
	req(c.SessionsTopic != "", "SessionsTopic")
	req(c.EventsTopic != "", "EventsTopic")
	req(c.Decoder != nil, "Decoder")
	req(c.Encoder != nil, "Encoder")
	if c.TransactionTimeout < 0 {
		errs = append(errs, fmt.Errorf("TransactionTimeout: %s is negative", c.TransactionTimeout))
	}
	if c.CommitInterval < 0 {
		errs = append(errs, fmt.Errorf("CommitInterval: %s is negative", c.CommitInterval))
	}
	if c.EventWindow < 0 {
		errs = append(errs, fmt.Errorf("EventWindow: %s is negative", c.EventWindow))
	}
	if c.Horizon < 0 {
		errs = append(errs, fmt.Errorf("Horizon: %s is negative", c.Horizon))
	}
	return errors.Join(errs...)
}
