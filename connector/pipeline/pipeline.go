package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/kafka"
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

	parked  *parkedSet  // touched only by the Run goroutine
	ahead   *ahead      // the records taken and not started, poll ahead and hold (Run goroutine)
	revokes *revokes    // the running batch's cancel, and whether a revoke hit it
	settler *txnSettler // the running session's (Run goroutine)
	pinned  pinned      // the running session's batch caps (limits.go; Run goroutine)
	paused  fetchPauses // what the running session's fetching leaves paused (pause.go; Run goroutine)
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
		writes:  &writeHealth{threshold: cfg.WriteFailureThreshold, overdue: cfg.BatchDeadline},
		kept:    keptOutcomes{},
		revokes: &revokes{},
	}
	p.ahead = &ahead{turns: p.turns(),
		may: p.mayTakeAhead, begin: p.start, revokes: p.revokes, metrics: m, owned: &p.owned, writes: p.writes, log: cfg.Logger}
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
	p.revokes.revoke()
}

// runSession is the poll → batch → end loop of one Kafka session. A batch
// polled ahead while the previous transaction ended (transact) is ended
// next, before anything else is polled.
func (p *Pipeline) runSession(ctx context.Context, s *kafka.TxnSession) error {
	var next *running // polled ahead: ended even once ctx is done
	// A revoke seen until now was the previous session's (its Close revokes
	// everything): no batch of this session runs yet, and one left set would
	// abort this session's first batch after its calls.
	p.revokes.done()
	p.parked.stale = true
	p.settler = newTxnSettler(s.Client(), p.cfg.TransactionalID, p.log)
	p.ahead.reset()
	p.paused = fetchPauses{} // this session's client fetches everything
	for ctx.Err() == nil || next != nil {
		r := next
		next = nil
		if r == nil {
			if p.limitsMoved() { // between two transactions: nothing in flight
				return errLimitsChanged
			}
			if p.parked.stale {
				p.marks.invalidate()
				if err := p.seedParked(ctx, s.Client()); err != nil {
					p.log.Warn("rebuilding the parked set failed; session order across restarts is best effort", slog.Any("error", err))
				}
				p.parked.stale = false
			}
			if !p.awaitHealthy(ctx, s) {
				return nil
			}
			if !p.paused.retryUntil.IsZero() && !p.clock.Now().Before(p.paused.retryUntil) {
				p.paused.retryUntil = time.Time{}
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
			p.paused.retryUntil = t
		}
	}
	return nil
}

// pollHeld returns the next batch's records: those held (ahead), then
// what a poll adds. With nothing held it waits up to a second for records;
// with records held it takes only what is already fetched. A revoke
// pending gives the held records back first.
func (p *Pipeline) pollHeld(ctx context.Context, s *kafka.TxnSession) ([]*kgo.Record, error) {
	if p.revokes.pending() {
		p.ahead.release(s.Client(), func(*kgo.Record) bool { return true })
	}
	if !p.obeyPause(s) { // the operator's pause is not known yet: take nothing
		p.awaitPauseKnown(ctx)
		return nil, nil
	}
	if len(p.ahead.held) > 0 {
		return p.ahead.take(fetched, s)
	}
	pollCtx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return p.ahead.take(pollCtx, s)
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
