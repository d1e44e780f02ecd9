package reconcile

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/fields"
	"github.com/paysession/paysession/internal/outbound"
	"github.com/paysession/paysession/internal/payapi"
)

// API is the part of *payapi.Client the reconciler calls.
type API interface {
	Status(ctx context.Context, sessionID string, opts ...payapi.CallOption) (*payapi.Session, error)
	Confirm(ctx context.Context, sessionID string, opts ...payapi.CallOption) (*payapi.Session, error)
}

// DefaultMaxAge is Config.MaxAge's default. The spec's timers end far
// sooner: an action is canceled after 60 minutes, a confirmation after 240,
// webhooks stop after 30. A session still open three days after its
// creation waits for nothing the service will do by itself (a delayed
// capture waits for the partner, whose capture command the pipeline
// publishes), and polling it every MaxBackoff for ever only costs API calls.
const DefaultMaxAge = 72 * time.Hour

// Config configures a Reconciler. Zero durations and counts take the
// defaults shown.
type Config struct {
	// Brokers of the Kafka cluster, for the reconciler's own consumer. Required.
	Brokers []string
	// KafkaOpts are extra consumer options (TLS, SASL, client id).
	KafkaOpts []kgo.Opt
	// Group is the consumer group every replica joins. Default
	// "paysession-reconciler".
	Group string
	// SessionsTopic is read to learn every session's state. Default
	// "payments.sessions".
	SessionsTopic string
	// UpdatesTopic receives polled states as updates; the session writer
	// writes them to SessionsTopic when they are newer. Default
	// "payments.sessions.updates".
	UpdatesTopic string
	// Producer publishes polled states with TryProduce, which never blocks,
	// so a long Kafka outage fails polls instead of piling up workers.
	// Required.
	Producer outbound.Producer
	// Encoder encodes them. Required.
	Encoder outbound.Encoder
	// Sizer checks them against the updates topic's limit (one shared by
	// the connector's writers, pinned to the Producer's batch caps): a
	// state that would not fit is published without its operations'
	// metadata, or not at all (counted, logged). Default: Kafka's default
	// limit.
	Sizer *outbound.Sizer
	// Decoder reads the sessions topic. Default: a CodecStateDecoder
	// without a registry (single-object values, and JSON).
	Decoder StateDecoder
	// API polls session/status and sends session/confirm. Required.
	API API
	// APIVersion is recorded on polled states. Default 1.
	APIVersion int
	// QuietAfter: a session with no new state for this long is polled.
	// Default 5m.
	QuietAfter time.Duration
	// MaxBackoff caps the wait between polls of a session that does not
	// change (doubling from QuietAfter) or whose poll fails. Default 30m,
	// or QuietAfter when that is longer.
	MaxBackoff time.Duration
	// MaxAge bounds how long a session that never settles is polled,
	// counted from its created_at (or, without one, the earliest state
	// read). A session older than MaxAge that comes due is not polled: its
	// last known state is published once more with the stale marker
	// (headers paysession-warning: stale and paysession-age-from), and it is
	// not polled again while it stays unsettled. Default DefaultMaxAge;
	// it must exceed the confirmation deadline.
	MaxAge time.Duration
	// Horizon is how far back the reconciler remembers a session: on every
	// assignment it reads each partition of SessionsTopic from the first
	// record stamped within Horizon (plus codec.ClockAllowance)
	// before Now, not from the start, and about once a minute it forgets
	// the sessions whose last record fell behind that, stale-marked ones
	// included. Default codec.DefaultHorizon; it must exceed MaxAge,
	// so that only sessions settled or marked stale are forgotten while the
	// connector runs.
	Horizon time.Duration
	// Tick is how often (real time) due sessions are looked for. Default 1s.
	Tick time.Duration
	// MaxInFlight bounds concurrent API calls. Default 8.
	MaxInFlight int
	// CallTimeout bounds one API call and its publish. Default 30s.
	CallTimeout time.Duration
	// Confirm is the confirmation policy. Default: wait for upstream.
	Confirm ConfirmPolicy
	// Registerer receives the metrics; nil registers nowhere.
	Registerer prometheus.Registerer
	// Logger is required.
	Logger *slog.Logger
	// Now tells the time that quietness, backoff, deadlines and the horizon
	// are measured on; tests share the sandbox's fake clock. Default
	// time.Now.
	Now func() time.Time
}

func (c *Config) defaults() {
	fields.Default(&c.Group, "paysession-reconciler")
	fields.Default(&c.SessionsTopic, "payments.sessions")
	fields.Default(&c.UpdatesTopic, "payments.sessions.updates")
	fields.Default(&c.APIVersion, 1)
	fields.Default(&c.QuietAfter, 5*time.Minute)
	fields.Default(&c.MaxBackoff, max(30*time.Minute, c.QuietAfter))
	fields.Default(&c.MaxAge, DefaultMaxAge)
	fields.Default(&c.Horizon, codec.DefaultHorizon)
	fields.Default(&c.Tick, time.Second)
	fields.Default(&c.MaxInFlight, 8)
	fields.Default(&c.CallTimeout, 30*time.Second)
	c.Confirm.defaults()
	if c.Decoder == nil {
		if dec, err := codec.NewDecoder(codec.DecoderConfig{}); err == nil {
			c.Decoder = CodecStateDecoder{Decoder: dec}
		}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Sizer == nil {
		c.Sizer, _ = outbound.NewSizer(nil, nil, c.Logger) // registers nothing: cannot fail
	}
}

// Validate reports every missing or invalid field at once.
func (c Config) Validate() error {
	var errs fields.Errors
	add := errs.Add
	if len(c.Brokers) == 0 {
		add("Brokers", "required")
	}
	if c.Producer == nil {
		add("Producer", "required")
	}
	if c.Encoder == nil {
		add("Encoder", "required")
	}
	if c.API == nil {
		add("API", "required")
	}
	if c.Logger == nil {
		add("Logger", "required")
	}
	if c.APIVersion != 0 && c.APIVersion != 1 && c.APIVersion != 2 {
		add("APIVersion", "%d: want 1 or 2", c.APIVersion)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"QuietAfter", c.QuietAfter}, {"MaxBackoff", c.MaxBackoff}, {"MaxAge", c.MaxAge}, {"Horizon", c.Horizon}, {"Tick", c.Tick}, {"CallTimeout", c.CallTimeout}} {
		if d.v < 0 {
			add(d.name, "%s is negative", d.v)
		}
	}
	if c.QuietAfter > 0 && c.MaxBackoff > 0 && c.MaxBackoff < c.QuietAfter {
		add("MaxBackoff", "%s is shorter than QuietAfter %s", c.MaxBackoff, c.QuietAfter)
	}
	if deadline := cmp.Or(c.Confirm.Deadline, defaultConfirmDeadline); c.MaxAge > 0 && c.MaxAge <= deadline {
		add("MaxAge", "%s is not longer than the confirmation deadline %s", c.MaxAge, deadline)
	}
	horizon, maxAge := cmp.Or(c.Horizon, codec.DefaultHorizon), cmp.Or(c.MaxAge, DefaultMaxAge)
	if c.Horizon >= 0 && maxAge > 0 && horizon <= maxAge {
		add("Horizon", "%s is not longer than MaxAge %s", horizon, maxAge)
	}
	if c.MaxInFlight < 0 {
		add("MaxInFlight", "%d is negative", c.MaxInFlight)
	}
	if err := c.Confirm.Validate(); err != nil {
		add("Confirm", "%w", err)
	}
	return errs.Err()
}

var _ API = (*payapi.Client)(nil)
