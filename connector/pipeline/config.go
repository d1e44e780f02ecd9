package pipeline

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/sessionstate"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/outbound"
	"github.com/paysession/paysession/internal/payapi"
)

// Topics names the pipeline's topics.
type Topics struct {
	// Commands maps each command kind to its topic.
	Commands map[codec.CommandKind]string
	// Retry holds parked commands (consumed by the pipeline itself).
	Retry string
	// Results receives one command-result per command (key idempotency key).
	Results string
	// SessionUpdates receives the session states the pipeline learned (key
	// session id); the session writer derives the sessions topic from it.
	SessionUpdates string
	// DeadLetter receives undecodable and invalid command records.
	DeadLetter string
	// Attempts holds the attempt marks that prove a command was never sent
	// (compacted; key consumed topic/partition; see attempts.go).
	Attempts string
}

// All lists every topic the pipeline reads or writes: the command topics,
// then retry, results, session updates, dead-letter and attempts.
func (t Topics) All() []string {
	var all []string
	for _, k := range codec.Kinds() {
		if tp, ok := t.Commands[k]; ok {
			all = append(all, tp)
		}
	}
	return append(all, t.Retry, t.Results, t.SessionUpdates, t.DeadLetter, t.Attempts)
}

// DefaultTopics returns the default topic names.
func DefaultTopics() Topics {
	t := Topics{
		Commands:       make(map[codec.CommandKind]string),
		Retry:          "payments.commands.retry",
		Results:        "payments.command-results",
		SessionUpdates: "payments.sessions.updates",
		DeadLetter:     "payments.dead-letter",
		Attempts:       "payments.commands.attempts",
	}
	for _, k := range codec.Kinds() {
		t.Commands[k] = k.DefaultTopic()
	}
	return t
}

// StateFunc normalizes an API session into a masked session state; source
// is a codec.SessionSource value. Default: sessionstate.FromAPI.
type StateFunc func(s *payapi.Session, source string, observedAt time.Time, apiVersion int) *codec.SessionState

// Config configures a Pipeline. Zero durations and counts take the defaults
// named on each field.
type Config struct {
	// Kafka are the client options: seeds, TLS, SASL, logging. The pipeline
	// adds group, transaction, isolation and topic options itself.
	Kafka []kgo.Opt
	// GroupID is the consumer group (required).
	GroupID string
	// TransactionalID is this instance's transactional id: a configured prefix
	// plus a stable instance id, so a restarted instance fences its zombie
	// (required).
	TransactionalID string
	// Topics names the topics (default DefaultTopics()).
	Topics Topics
	// Sizer checks every record against what its topic accepts (one
	// shared by the connector's writers, over topics.Live): a record that
	// would not fit is written in a leaner form or left out (produce.go),
	// and the producer's batch caps follow each topic's max.message.bytes,
	// pinned when the Kafka session is built; a session whose pinned limits
	// no longer match the live ones is rebuilt between two transactions
	// (limits.go). Default: Kafka's default limit for every topic.
	Sizer *outbound.Sizer

	API     API              // the payment API client (required)
	Decoder Decoder          // command decoder (required)
	Encoder outbound.Encoder // outcome encoder (required)
	States  StateFunc        // session normalizer (default sessionstate.FromAPI)
	// APIVersion is recorded on outcomes (default 1).
	APIVersion int

	// Concurrency is the most API calls in flight (default 256).
	Concurrency int
	// MaxPollRecords bounds a batch (default 2 × Concurrency).
	MaxPollRecords int
	// MaxPerSession is the most commands of one session (one lane) a batch
	// runs (default 8): the rest of the session's commands in the batch are
	// parked behind them, and a batch takes at most this many of a lane's
	// retry records, so one session's flood delays the other commands of a
	// batch by at most MaxPerSession of its calls (held.go, batch.go).
	MaxPerSession int
	// BatchDeadline bounds a batch: commands still retrying then are parked
	// in the retry topic (default 10s; must be well under TransactionTimeout).
	BatchDeadline time.Duration
	// TransactionTimeout is the Kafka transaction timeout (default 30s). A
	// transaction left open by a crashed instance blocks its partitions until
	// this passes, unless an instance with the same TransactionalID restarts.
	TransactionTimeout time.Duration
	// ShutdownGrace bounds the work on a batch after Run's context ends
	// (default 5s); what is left is parked and committed.
	ShutdownGrace time.Duration
	// KeyLifetimeMargin: older commands get expired and are never sent
	// (default 23h; the service keeps keys 24h).
	KeyLifetimeMargin time.Duration
	// Retry bounds retries of retryable API errors.
	Retry RetryPolicy
	// DecodeFailureBudget is how many times a command may fail to decode
	// because the schema registry fails (it is parked in between, Retry.Max
	// apart) before it is rejected and dead-lettered, never sent (default 30).
	DecodeFailureBudget int
	// WriteFailureThreshold consecutive transactions aborted because one
	// topic could not be written stop the pipeline's polls and API calls
	// until the topic is back (default 3; negative disables; writes.go).
	WriteFailureThreshold int
	// PauseAfterFailures consecutive retryable failures pause fetching until
	// a probe call is answered (default 20; negative disables).
	PauseAfterFailures int
	// ProbeInterval is the wait between probes while paused (default 1s;
	// a larger Retry-After wins).
	ProbeInterval time.Duration
	// RateLimit caps API calls per second (0: no limit); RateBurst is the
	// bucket size (default 1).
	RateLimit float64
	RateBurst int
	// Paused tells which command kinds an operator paused, and whether
	// that is known yet (control.Reader): no record of a paused kind is
	// taken into a new batch, and no batch starts while it is not known
	// (pause.go). Default: nothing is ever paused.
	Paused func() (kinds []string, known bool)

	Clock      Clock  // default: the real clock
	JitterSeed uint64 // seed of the backoff jitter
	Logger     *slog.Logger
	Registerer prometheus.Registerer // optional
	// ClientHooks, when set, gives the hooks of each Kafka session's client
	// (a fresh set per session: the client is rebuilt after an unknown
	// transaction end), e.g. kprom metrics that unregister when it closes.
	ClientHooks func() []kgo.Hook
}

func (c *Config) defaults() {
	if c.Topics.Commands == nil && c.Topics.Results == "" {
		c.Topics = DefaultTopics()
	}
	if c.APIVersion == 0 {
		c.APIVersion = 1
	}
	if c.Concurrency == 0 {
		c.Concurrency = 256
	}
	if c.MaxPollRecords == 0 {
		c.MaxPollRecords = 2 * c.Concurrency
	}
	if c.MaxPerSession == 0 {
		c.MaxPerSession = 8
	}
	setDur(&c.BatchDeadline, 10*time.Second)
	setDur(&c.TransactionTimeout, 30*time.Second)
	setDur(&c.ShutdownGrace, 5*time.Second)
	setDur(&c.KeyLifetimeMargin, 23*time.Hour)
	setDur(&c.ProbeInterval, time.Second)
	if c.WriteFailureThreshold == 0 {
		c.WriteFailureThreshold = 3
	}
	if c.DecodeFailureBudget == 0 {
		c.DecodeFailureBudget = 30
	}
	if c.PauseAfterFailures == 0 {
		c.PauseAfterFailures = 20
	}
	c.Retry = c.Retry.withDefaults()
	if c.States == nil {
		c.States = sessionstate.FromAPI
	}
	if c.Clock == nil {
		c.Clock = realClock{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Sizer == nil {
		c.Sizer, _ = outbound.NewSizer(nil, nil, c.Logger) // registers nothing: cannot fail
	}
}

func setDur(d *time.Duration, def time.Duration) {
	if *d == 0 {
		*d = def
	}
}

// Validate reports every problem of the configuration (after defaults).
func (c Config) Validate() error {
	var errs []error
	req := func(ok bool, field string) {
		if !ok {
			errs = append(errs, fmt.Errorf("%s: required", field))
		}
	}
	req(c.GroupID != "", "GroupID")
	req(c.TransactionalID != "", "TransactionalID")
	req(c.API != nil, "API")
	req(c.Decoder != nil, "Decoder")
	req(c.Encoder != nil, "Encoder")
	req(len(c.Topics.Commands) > 0, "Topics.Commands")
	req(c.Topics.Retry != "", "Topics.Retry")
	req(c.Topics.Results != "", "Topics.Results")
	req(c.Topics.SessionUpdates != "", "Topics.SessionUpdates")
	req(c.Topics.DeadLetter != "", "Topics.DeadLetter")
	req(c.Topics.Attempts != "", "Topics.Attempts")
	seen := map[string]codec.CommandKind{}
	for k, t := range c.Topics.Commands {
		if _, err := codec.ParseKind(string(k)); err != nil {
			errs = append(errs, fmt.Errorf("Topics.Commands: %w", err))
		}
		if o, dup := seen[t]; dup || t == "" || t == c.Topics.Retry {
			errs = append(errs, fmt.Errorf("Topics.Commands[%s]: topic %q empty or shared (with %s or retry)", k, t, o))
		}
		seen[t] = k
	}
	if c.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("%s: must be at least 1", "Concurrency"))
	}
	if c.MaxPollRecords < 1 {
		errs = append(errs, fmt.Errorf("%s: must be at least 1", "MaxPollRecords"))
	}
	if c.MaxPerSession < 1 {
		errs = append(errs, fmt.Errorf("%s: must be at least 1", "MaxPerSession"))
	}
	if c.BatchDeadline*2 > c.TransactionTimeout {
		errs = append(errs, fmt.Errorf("%s: must be at most half of TransactionTimeout", "BatchDeadline"))
	}
	if c.KeyLifetimeMargin >= 24*time.Hour {
		errs = append(errs, fmt.Errorf("%s: must be under the service's 24h key lifetime", "KeyLifetimeMargin"))
	}
	if c.RateLimit < 0 {
		errs = append(errs, fmt.Errorf("%s: must not be negative", "RateLimit"))
	}
	errs = append(errs, c.Retry.validate())
	return errors.Join(errs...)
}
