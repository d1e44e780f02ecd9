package sessionwriter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/fifo"
	"github.com/paysession/paysession/internal/kafka"
	"github.com/paysession/paysession/internal/outbound"
	"github.com/paysession/paysession/internal/retry"
)

// Writer derives the sessions and webhook-events topics from the
// session-updates topic, one partition owner at a time (see the package
// documentation).
type Writer struct {
	cfg     Config
	log     *slog.Logger
	metrics *metrics
	index   *index
	session atomic.Pointer[kgo.GroupTransactSession]
	caps    outbound.Limits // the running session's batch caps (limits.go; Run goroutine)
	sizer   *outbound.Sizer // Config.Sizer pinned to caps (Run goroutine)
	// staleLogged holds the sessions whose stale update was logged lately.
	staleLogged *fifo.Set[string, struct{}]
	// projects interns the projects the sessions' states name (known.go).
	projects projectTable

	mu      sync.Mutex
	pending map[int32]bool // assigned partitions not yet taken over
	// takenOver are the owned partitions taken over, with when (Status).
	takenOver map[int32]takeover
	joined    bool
	wake      chan struct{} // an assignment interrupts the poll, to take over at once
}

// New validates cfg and returns a Writer; it connects nothing until Run.
func New(cfg Config) (*Writer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("session writer config: %w", err)
	}
	cfg.defaults()
	x := newIndex()
	m, err := newMetrics(cfg.Registerer, x)
	if err != nil {
		return nil, err
	}
	w := &Writer{cfg: cfg, log: cfg.Logger, metrics: m, index: x, pending: map[int32]bool{}, takenOver: map[int32]takeover{}, wake: make(chan struct{}, 1),
		staleLogged: fifo.New[string, struct{}](staleLogMax, staleLogEvery)}
	w.pinLimits()
	return w, nil
}

// Ready is a readiness check: nil once the writer joined its group and took
// over every partition it was assigned, so updates of its partitions reach
// the sessions topic.
func (w *Writer) Ready(context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.joined {
		return fmt.Errorf("session writer: group %s not joined yet", w.cfg.GroupID)
	}
	if n := len(w.pending); n > 0 {
		return fmt.Errorf("session writer: %d partitions of %s still being taken over", n, w.cfg.SessionsTopic)
	}
	return nil
}

// Run writes until ctx ends. A transaction whose end is unknown, or a
// session that cannot start (no broker answers), rebuilds the Kafka
// session after a pause; only invalid options end Run with an error.
func (w *Writer) Run(ctx context.Context) error {
	waits := retry.Doubling{Initial: time.Second, Max: 10 * time.Second}
	for rebuilds := 0; ; rebuilds++ {
		s, err := w.newSession()
		if err == nil {
			w.session.Store(s)
			err = w.runSession(ctx, s)
			w.session.Store(nil)
			s.Close()
			w.index.dropAll()
			w.mu.Lock()
			w.joined = false
			clear(w.pending)
			w.mu.Unlock()
		}
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, kafka.ErrOptions) {
			return err
		}
		if errors.Is(err, errLimitsChanged) {
			w.log.Info("session writer rebuilding its kafka session", slog.Any("reason", err))
			rebuilds = -1
			continue
		}
		wait := waits.After(rebuilds)
		w.log.Warn("session writer rebuilding its kafka session", slog.Any("error", err), slog.Duration("retry_in", wait))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

func (w *Writer) newSession() (*kgo.GroupTransactSession, error) {
	opts := append([]kgo.Opt{}, w.cfg.Kafka...)
	opts = append(opts,
		kgo.ConsumerGroup(w.cfg.GroupID),
		kgo.ConsumeTopics(w.cfg.UpdatesTopic),
		kgo.TransactionalID(w.cfg.TransactionalID),
		kgo.TransactionTimeout(w.cfg.TransactionTimeout),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.OnPartitionsAssigned(w.onAssigned),
		kgo.OnPartitionsRevoked(w.onLoss),
		kgo.OnPartitionsLost(w.onLoss),
	)
	opts = append(opts, w.pinLimits())
	if w.cfg.ClientHooks != nil {
		opts = append(opts, kgo.WithHooks(w.cfg.ClientHooks()...))
	}
	s, err := kafka.NewTransactSession(w.cfg.TransactionTimeout, opts...)
	if err != nil {
		return nil, fmt.Errorf("session writer: %w", err)
	}
	return s, nil
}

func (w *Writer) onAssigned(_ context.Context, _ *kgo.Client, assigned map[string][]int32) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.joined = true
	for _, p := range assigned[w.cfg.UpdatesTopic] {
		w.pending[p] = true
	}
	select {
	case w.wake <- struct{}{}:
	default:
	}
	w.log.Info("session writer partitions assigned", slog.Any("partitions", assigned[w.cfg.UpdatesTopic]))
}

func (w *Writer) onLoss(_ context.Context, _ *kgo.Client, lost map[string][]int32) {
	ps := lost[w.cfg.UpdatesTopic]
	w.index.drop(ps...)
	w.mu.Lock()
	for _, p := range ps {
		delete(w.pending, p)
		delete(w.takenOver, p)
	}
	w.mu.Unlock()
	w.log.Info("session writer partitions released", slog.Any("partitions", ps))
}

// runSession polls updates and writes what they derive, one transaction
// per poll and at most one per CommitInterval, until ctx ends or a
// transaction's end is unknown.
func (w *Writer) runSession(ctx context.Context, s *kgo.GroupTransactSession) error {
	var began time.Time // when the last transaction began (monotonic)
	for {
		if w.limitsMoved() { // between two transactions: nothing in flight
			return errLimitsChanged
		}
		w.pace(ctx, began)
		if err := w.takeOverPending(ctx); err != nil {
			return err
		}
		fs := w.poll(ctx, s)
		if ctx.Err() != nil {
			return nil
		}
		fs.EachError(func(topic string, p int32, err error) {
			if errors.Is(err, context.Canceled) {
				return // interrupted by an assignment
			}
			w.log.Warn("session writer fetch failed", slog.String("topic", topic), slog.Int("partition", int(p)), slog.Any("error", err))
		})
		recs := fs.Records()
		if len(recs) == 0 {
			continue
		}
		if w.limitsMoved() {
			return errLimitsChanged // the next session reads recs again from the committed offsets
		}
		if err := w.takeOverPending(ctx); err != nil {
			return err
		}
		began = time.Now()
		if err := w.transact(ctx, s, recs); err != nil {
			return err
		}
	}
}

// pace waits until CommitInterval has passed since began, so that the
// updates arriving meanwhile are polled together into the next
// transaction. An assignment ends the wait (its partitions are taken over
// at once, as without pacing), and so does ctx.
func (w *Writer) pace(ctx context.Context, began time.Time) {
	d := w.cfg.CommitInterval - time.Since(began)
	if began.IsZero() || d <= 0 {
		return
	}
	select {
	case <-w.cfg.After(d):
	case <-w.wake:
	case <-ctx.Done():
	}
}

// poll polls updates until some arrive, ctx ends or partitions are
// assigned: a partition is taken over (and the writer ready) without
// waiting for traffic.
func (w *Writer) poll(ctx context.Context, s *kgo.GroupTransactSession) kgo.Fetches {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	polled := make(chan struct{})
	defer close(polled)
	go func() {
		select {
		case <-w.wake:
			cancel()
		case <-polled:
		}
	}()
	return s.PollFetches(pctx)
}

// takeOverPending reads every assigned partition not taken over yet.
func (w *Writer) takeOverPending(ctx context.Context) error {
	w.mu.Lock()
	var ps []int32
	for p := range w.pending {
		ps = append(ps, p)
	}
	w.mu.Unlock()
	for _, p := range ps {
		started := time.Now()
		part, err := w.takeOver(ctx, p)
		if err != nil {
			return fmt.Errorf("take over partition %d: %w", p, err)
		}
		w.mu.Lock()
		if w.pending[p] { // still ours
			delete(w.pending, p)
			w.index.set(p, part)
			w.takenOver[p] = takeover{at: time.Now(), took: time.Since(started)}
		}
		w.mu.Unlock()
		w.log.Info("session writer took over a partition", slog.Int("partition", int(p)),
			slog.Int("sessions", part.versions.len()), slog.Int("event_ids", len(part.events.at)))
	}
	return nil
}

// transact writes what one poll's updates derive, and commits them with
// the updates' offsets. An abort takes the index changes back (the updates
// are consumed again); an unknown end returns an error, and the session is
// rebuilt with every partition read again.
func (w *Writer) transact(ctx context.Context, s *kgo.GroupTransactSession, recs []*kgo.Record) error {
	if err := s.Begin(); err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	var (
		j           journal
		out         []*kgo.Record
		counts      = map[string]int{}
		written     int
		dupes       int
		staleEvents int
		err         error
	)
	at := w.cutoffs()
	w.metrics.forgotten.Add(float64(w.index.sweep(at.now, at.forget, at.events)))
	span := startTransactionSpan(len(recs))
	for _, r := range recs {
		part := w.index.get(r.Partition)
		if part == nil {
			// Revoked since the poll: the transaction aborts below.
			err = fmt.Errorf("partition %d no longer owned", r.Partition)
			break
		}
		var d derived
		if d, err = w.derive(ctx, r, part, &j, at); err != nil {
			break
		}
		counts[d.result]++
		for _, o := range []*kgo.Record{d.state, d.event} {
			if o != nil {
				out = append(out, o)
			}
		}
		if d.event != nil {
			written++
		}
		if d.dupe {
			dupes++
		}
		if d.staleEvent {
			staleEvents++
		}
	}
	if err == nil {
		err = w.produce(ctx, s, out)
	}
	endCtx, cancel := context.WithTimeout(context.Background(), w.cfg.TransactionTimeout)
	defer cancel()
	committed, endErr := s.End(endCtx, kgo.TransactionEndTry(err == nil))
	switch {
	case endErr != nil:
		endTransactionSpan(span, "unknown")
		w.metrics.transactions.WithLabelValues("unknown").Inc()
		return fmt.Errorf("end transaction: %w", endErr)
	case !committed:
		endTransactionSpan(span, "abort")
		j.undo()
		w.metrics.transactions.WithLabelValues("abort").Inc()
		w.log.Warn("session writer transaction aborted; its updates are read again", slog.Int("updates", len(recs)), slog.Any("error", err))
		return nil
	}
	endTransactionSpan(span, "commit")
	w.metrics.transactions.WithLabelValues("commit").Inc()
	for result, n := range counts {
		w.metrics.updates.WithLabelValues(result).Add(float64(n))
	}
	w.metrics.events.WithLabelValues("written").Add(float64(written))
	w.metrics.events.WithLabelValues("duplicate").Add(float64(dupes))
	w.metrics.events.WithLabelValues("stale").Add(float64(staleEvents))
	return nil
}

// produce writes recs into the open transaction and waits for every
// acknowledgement.
func (w *Writer) produce(ctx context.Context, s *kgo.GroupTransactSession, recs []*kgo.Record) error {
	if len(recs) == 0 {
		return nil
	}
	pctx, cancel := context.WithTimeout(ctx, w.cfg.TransactionTimeout/2)
	defer cancel()
	if r, err := kafka.ProduceAll(pctx, s.Client(), recs); err != nil {
		w.cfg.Sizer.Refused(err)
		if r != nil {
			return fmt.Errorf("produce to %s: %w", r.Topic, err)
		}
		return err
	}
	return nil
}

// Partitions returns the partitions this writer owns and has taken over,
// in order: those it writes now.
func (w *Writer) Partitions() []int32 {
	w.index.mu.Lock()
	defer w.index.mu.Unlock()
	ps := make([]int32, 0, len(w.index.parts))
	for p := range w.index.parts {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}
