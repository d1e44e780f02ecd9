package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/topics"
	"github.com/paysession/paysession/internal/kafka"
	"github.com/paysession/paysession/internal/outbound"
	"github.com/paysession/paysession/internal/retry"
)

// Pipeline consumes command topics and executes each command against the
// payment API, publishing outcomes and consumer offsets in one transaction.
type Pipeline struct {
	cfg     Config
	api     API
	clock   Clock
	log     *slog.Logger
	metrics *metrics
	backoff *backoff
	limiter *limiter
	health  *health
	sem     chan struct{}
	kinds   map[string]string // topic → command kind
	topics  []string          // every consumed topic

	session atomic.Pointer[kafka.TxnSession] // the running session, for GroupJoined

	marks    *attemptMarks // touched only by the Run goroutine
	kept     keptOutcomes  // outcomes of batches aborted for a write failure (Run goroutine)
	writes   *writeHealth
	assigned atomic.Bool     // partitions were assigned: reload the attempt marks
	owned    ownedPartitions // assigned partitions and their lag, for Status
	retrying atomic.Int64    // commands waiting for their next attempt in a batch (retryWait)

	parked   *parkedSet      // touched only by the Run goroutine
	settler  *txnSettler     // the running session's (Run goroutine)
	topicIDs topicIDs        // the running session's, from its fetches (Run goroutine)
	reseed   bool            // rebuild parked from the retry topic before the next poll
	held     []*kgo.Record   // consumed ahead of the next batch, not started (hold; Run goroutine)
	ends     fetchEnds       // the running session's, from its fetches (Run goroutine)
	caps     outbound.Limits // the running session's batch caps (limits.go; Run goroutine)
	sizer    *outbound.Sizer // Config.Sizer pinned to caps (Run goroutine)
	// opPaused are the topics the running session's fetching leaves
	// paused for an operator's pause (pause.go; Run goroutine).
	opPaused map[string]bool
	// retryPausedUntil is when the retry topic, paused until its first
	// parked command is due, is fetched again (zero: not paused so; Run
	// goroutine).
	retryPausedUntil time.Time

	mu          sync.Mutex
	cancelBatch context.CancelFunc // cancels the running batch (on revoke)
	revoked     bool               // a revoke or loss hit the running batch
}

// New validates the configuration and returns a Pipeline ready to Run.
func New(cfg Config) (*Pipeline, error) {
	cfg.defaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("pipeline config: %w", err)
	}
	m, err := newMetrics(cfg.Registerer)
	if err != nil {
		return nil, fmt.Errorf("pipeline metrics: %w", err)
	}
	p := &Pipeline{
		cfg:     cfg,
		api:     cfg.API,
		clock:   cfg.Clock,
		log:     cfg.Logger,
		metrics: m,
		backoff: newBackoff(cfg.Retry, cfg.JitterSeed),
		limiter: newLimiter(cfg.RateLimit, cfg.RateBurst),
		health:  &health{threshold: cfg.PauseAfterFailures},
		sem:     make(chan struct{}, cfg.Concurrency),
		kinds:   make(map[string]string),
		parked:  newParkedSet(),
		writes:  &writeHealth{threshold: cfg.WriteFailureThreshold},
		kept:    keptOutcomes{},
	}
	p.pinLimits()
	p.marks = newAttemptMarks(cfg.Topics.Attempts, cfg.MaxPollRecords, cfg.BatchDeadline, cfg.Kafka)
	for k, t := range cfg.Topics.Commands {
		p.kinds[t] = string(k)
		p.topics = append(p.topics, t)
	}
	p.topics = append(p.topics, cfg.Topics.Retry)
	return p, nil
}

// Run consumes and executes commands until ctx ends, then finishes or parks
// the open batch within ShutdownGrace, commits it, leaves the group and
// returns. A transaction whose end is unknown rebuilds the Kafka session (and
// so re-reads the committed offsets); replays are safe because every command
// reuses its idempotency key. While no broker answers (a broker restart), it
// keeps trying to start a session; only a final error (bad options, an
// authorization failure) ends Run with an error.
func (p *Pipeline) Run(ctx context.Context) error {
	if err := p.marks.open(); err != nil {
		return err
	}
	defer p.marks.close()
	waits, misses := retry.Doubling{Initial: time.Second, Max: maxSessionRetryWait}, 0
	for {
		s, err := p.newSession()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if !sessionRetriable(err) {
				return err
			}
			// No broker answers (a broker restart, a network partition):
			// keep trying rather than stop the whole connector (webhooks
			// and reconciler included); /readyz reports that no session
			// runs meanwhile.
			wait := waits.After(misses)
			misses++
			p.log.Warn("kafka session could not start; retrying", slog.Any("error", err), slog.Duration("retry_in", wait))
			if !sleepCtx(ctx, wait) {
				return nil
			}
			continue
		}
		misses = 0
		p.session.Store(s)
		err = p.runSession(ctx, s)
		p.session.Store(nil)
		s.Close() // leaves the group
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, errLimitsChanged) {
			p.log.Info("rebuilding kafka session", slog.Any("reason", err))
			continue
		}
		p.log.Warn("rebuilding kafka session", slog.Any("error", err))
		if errors.Is(err, errWritesBlocked) {
			if !p.awaitTopic(ctx, p.writes.blockedTopic()) {
				return nil
			}
			continue
		}
		if !sleepCtx(ctx, time.Second) {
			return nil
		}
	}
}

// errWritesBlocked ends a session whose outcomes could not be written
// WriteFailureThreshold times in a row for one topic (writes.go).
var errWritesBlocked = errors.New("outcome topic not writable; stopped calling the API")

// awaitTopic waits, without polling or calling the API, until topic shows up
// in the cluster's metadata with a leader for every partition; it returns
// false if ctx ended first.
func (p *Pipeline) awaitTopic(ctx context.Context, topic string) bool {
	if topic == "" {
		return ctx.Err() == nil
	}
	cl, err := kgo.NewClient(p.cfg.Kafka...)
	if err != nil {
		return ctx.Err() == nil
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	p.log.Error("stopped calling the API until the topic is writable again", slog.String("topic", topic))
	for {
		mctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		td, err := adm.ListTopics(mctx, topic)
		cancel()
		if err == nil && topicUsable(td, topic) {
			p.log.Info("topic is back; rebuilding the kafka session", slog.String("topic", topic))
			return true
		}
		if !sleepCtx(ctx, 2*time.Second) {
			return false
		}
	}
}

// topicUsable reports whether the metadata shows topic with a leader for
// each of its partitions.
func topicUsable(td kadm.TopicDetails, topic string) bool {
	d, ok := td[topic]
	if !ok || d.Err != nil || len(d.Partitions) == 0 {
		return false
	}
	for _, part := range d.Partitions {
		if part.Err != nil || part.Leader < 0 {
			return false
		}
	}
	return true
}

// Writable is a readiness check: nil while the pipeline can write its
// outcome topics and read its command topics; otherwise an error naming
// each topic and its error (writes.go). Whether the topics exist at all is
// the connector's check of its whole configuration.
func (p *Pipeline) Writable(context.Context) error { return p.writes.check(time.Now()) }

// GroupJoined is a readiness check: nil while the pipeline's consumer is a
// member of its group, with or without partitions (a replica beyond the
// partition count is a ready standby that takes over on a rebalance).
func (p *Pipeline) GroupJoined(context.Context) error {
	s := p.session.Load()
	if s == nil {
		return fmt.Errorf("group %s: no kafka session running", p.cfg.GroupID)
	}
	if _, generation := s.Client().GroupMetadata(); generation < 0 {
		return fmt.Errorf("group %s: not joined yet", p.cfg.GroupID)
	}
	return nil
}

// newSession builds the transactional group session.
func (p *Pipeline) newSession() (*kafka.TxnSession, error) {
	opts := append([]kgo.Opt{}, p.cfg.Kafka...)
	opts = append(opts,
		kgo.ConsumerGroup(p.cfg.GroupID),
		kgo.ConsumeTopics(p.topics...),
		kgo.TransactionalID(p.cfg.TransactionalID),
		kgo.TransactionTimeout(p.cfg.TransactionTimeout),
		p.pinLimits(),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.OnPartitionsAssigned(func(ctx context.Context, cl *kgo.Client, parts map[string][]int32) {
			p.owned.assign(ctx, cl, parts)
			p.assigned.Store(true)
		}),
	)
	if p.cfg.ClientHooks != nil {
		opts = append(opts, kgo.WithHooks(p.cfg.ClientHooks()...))
	}
	s, err := kafka.NewTxnSession(p.cfg.TransactionTimeout, p.onRevoked, opts...)
	if err != nil {
		return nil, fmt.Errorf("kafka session: %w", err)
	}
	return s, nil
}

// maxSessionRetryWait bounds the wait between attempts to start a Kafka
// session while no broker answers.
const maxSessionRetryWait = 10 * time.Second

// sessionRetriable reports whether starting a Kafka session may succeed
// later: yes for transport failures and timeouts (no broker answers) and
// retriable Kafka error codes; no for bad options and Kafka errors that
// are final (an authorization failure, a transaction timeout above the
// broker's maximum), which stop the connector with the error.
func sessionRetriable(err error) bool {
	if errors.Is(err, kafka.ErrOptions) {
		return false
	}
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Retriable
	}
	return true
}

// onRevoked runs on a rebalance that takes partitions away: the batch in
// flight cannot commit (the session aborts it), so stop its work now.
func (p *Pipeline) onRevoked(_ context.Context, _ *kgo.Client, rev map[string][]int32) {
	if len(rev) == 0 {
		return
	}
	p.metrics.forgetLag(rev)
	p.owned.revoke(rev)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.revoked = true
	if p.cancelBatch != nil {
		p.cancelBatch()
	}
}

// runSession is the poll → batch → end loop of one Kafka session. A batch
// polled ahead while the previous transaction ended (transact) is ended
// next, before anything else is polled.
func (p *Pipeline) runSession(ctx context.Context, s *kafka.TxnSession) error {
	var next *running // polled ahead: ended even once ctx is done
	// A revoke seen until now was the previous session's (its Close revokes
	// everything): no batch of this session runs yet, and one left set would
	// abort this session's first batch after its calls.
	p.batchDone()
	p.reseed = true
	p.settler = newTxnSettler(s.Client(), p.cfg.TransactionalID, p.log)
	p.topicIDs = topicIDs{}
	p.held = nil // the previous session's client consumed them; this one starts at the committed offsets
	p.ends = fetchEnds{}
	p.opPaused, p.retryPausedUntil = nil, time.Time{} // this session's client fetches everything
	for ctx.Err() == nil || next != nil {
		r := next
		next = nil
		if r == nil {
			if p.limitsMoved() { // between two transactions: nothing in flight
				return errLimitsChanged
			}
			if p.reseed {
				p.marks.invalidate()
				if err := p.seedParked(ctx, s.Client()); err != nil {
					p.log.Warn("rebuilding the parked set failed; session order across restarts is best effort", slog.Any("error", err))
				}
				p.reseed = false
			}
			if !p.awaitHealthy(ctx, s) {
				return nil
			}
			if !p.retryPausedUntil.IsZero() && !p.clock.Now().Before(p.retryPausedUntil) {
				p.retryPausedUntil = time.Time{}
				p.resumeFetch(s.Client(), p.cfg.Topics.Retry) // unless an operator paused it
			}
			recs, err := p.pollHeld(ctx, s)
			if err != nil {
				return err
			}
			if len(recs) == 0 {
				continue
			}
			if p.limitsMoved() {
				return errLimitsChanged // nothing started: the next session reads recs again
			}
			r = p.start(ctx, recs)
		}
		b, ahead, err := p.transact(ctx, s, r)
		if err != nil {
			return err
		}
		next = ahead
		if t := b.earliestNotDue(); !t.IsZero() {
			s.Client().PauseFetchTopics(p.cfg.Topics.Retry)
			p.retryPausedUntil = t
		}
	}
	return nil
}

// pollHeld returns the next batch's records: those held (hold), then what
// a poll adds. With nothing held it waits up to a second for records; with
// records held it takes only what is already fetched. A revoke pending
// releases the held records first (releaseHeld).
func (p *Pipeline) pollHeld(ctx context.Context, s *kafka.TxnSession) ([]*kgo.Record, error) {
	if p.revokePending() {
		p.releaseHeld(s)
	}
	if !p.obeyPause(s) { // the operator's pause is not known yet: take nothing
		p.awaitPauseKnown(ctx)
		return nil, nil
	}
	if len(p.held) > 0 {
		return p.takeHeld(fetched, s)
	}
	pollCtx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return p.takeHeld(pollCtx, s)
}

// takeHeld returns the next batch: at most MaxPollRecords of the held
// records and of everything a poll under ctx adds, taken in turn from
// their partitions; the rest stay held (held.go). It polls only while
// fewer than MaxPollRecords that a batch may take are held.
func (p *Pipeline) takeHeld(ctx context.Context, s *kafka.TxnSession) ([]*kgo.Record, error) {
	err := p.fill(ctx, s)
	var recs []*kgo.Record
	recs, p.held = p.turns().take(p.held)
	p.owned.setLags(p.metrics.observeLag(p.ends, recs, p.held))
	return recs, err
}

// fill adds what a poll under ctx gets to the held records, unless a
// batch's worth (MaxPollRecords) is held already (held.go).
func (p *Pipeline) fill(ctx context.Context, s *kafka.TxnSession) error {
	if p.turns().full(p.held) {
		return nil
	}
	recs, err := p.poll(ctx, s)
	p.held = append(p.held, recs...)
	return err
}

// poll returns everything one poll gets, noting fetch errors: a topic gone
// or unreadable fails the read health. A nil ctx takes only what is
// already fetched, at once. The error is final for the session (its
// client closed).
func (p *Pipeline) poll(ctx context.Context, s *kafka.TxnSession) ([]*kgo.Record, error) {
	fetches := s.PollRecords(ctx, 0)
	if fetches.IsClientClosed() {
		return nil, errors.New("kafka client closed")
	}
	fetches.EachError(func(t string, part int32, err error) {
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			p.log.Warn("fetch error", slog.String("topic", t), slog.Int("partition", int(part)), slog.Any("error", err))
			if topics.Classify(err) == topics.TopicUnavailable { // gone or not readable
				p.writes.readFailed(t, err, time.Now())
			}
		}
	})
	p.ends.learn(fetches)
	p.topicIDs.learn(fetches)
	return fetches.Records(), nil
}

// sleepCtx waits d; false if ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}
