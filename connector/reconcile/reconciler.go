package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"golang.org/x/sync/errgroup"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/retry"
)

// Reconciler polls quiet sessions and applies the confirmation policy.
type Reconciler struct {
	cfg      Config
	log      *slog.Logger
	pending  *pendingSet
	metrics  *metrics
	progress *progress
	workers  sync.WaitGroup
}

// New validates cfg and returns a Reconciler; it connects nothing until Run.
func New(cfg Config) (*Reconciler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("reconciler config: %w", err)
	}
	cfg.defaults()
	p := newPendingSet(cfg.Confirm, cfg.QuietAfter, cfg.MaxAge)
	m, err := newMetrics(cfg.Registerer, p)
	if err != nil {
		return nil, fmt.Errorf("reconciler metrics: %w", err)
	}
	return &Reconciler{cfg: cfg, log: cfg.Logger, pending: p, metrics: m, progress: newProgress()}, nil
}

// OpenSessions returns how many sessions of this replica's partitions are
// not settled.
func (r *Reconciler) OpenSessions() int { return r.pending.open() }

// Run consumes the sessions topic and polls due sessions until ctx ends.
// It returns after its consumer is closed and every call in flight ended.
func (r *Reconciler) Run(ctx context.Context) error {
	opts := append([]kgo.Opt{
		kgo.SeedBrokers(r.cfg.Brokers...),
		kgo.ConsumerGroup(r.cfg.Group),
		kgo.ConsumeTopics(r.cfg.SessionsTopic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),              // never commit: every assignment re-reads its partitions
		kgo.AdjustFetchOffsetsFn(r.readFrom), // from the horizon's start, not from the beginning
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.KeepControlRecords(), // their offsets tell when a partition is read to its end
		kgo.BlockRebalanceOnPoll(),
		kgo.OnPartitionsAssigned(r.onAssigned),
		kgo.OnPartitionsRevoked(r.onLoss),
		kgo.OnPartitionsLost(r.onLoss),
	}, r.cfg.KafkaOpts...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("reconciler consumer: %w", err)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return r.consume(gctx, cl) })
	g.Go(func() error { return r.scan(gctx) })
	err = g.Wait()
	r.workers.Wait()
	cl.AllowRebalance() // a blocked rebalance would stall leaving the group
	cl.Close()
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func (r *Reconciler) onLoss(_ context.Context, _ *kgo.Client, lost map[string][]int32) {
	r.pending.dropPartitions(lost[r.cfg.SessionsTopic])
	r.progress.released(lost[r.cfg.SessionsTopic])
	r.log.Info("reconciler partitions released", slog.Any("partitions", lost[r.cfg.SessionsTopic]))
}

// consume keeps the pending set up to date with the sessions topic.
func (r *Reconciler) consume(ctx context.Context, cl *kgo.Client) error {
	for {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil
		}
		fetches.EachError(func(topic string, part int32, err error) {
			if !errors.Is(err, context.Canceled) {
				r.log.Warn("reconciler fetch failed", slog.String("topic", topic), slog.Int("partition", int(part)), slog.Any("error", err))
			}
		})
		fetches.EachRecord(func(rec *kgo.Record) {
			r.progress.advance(rec.Partition, rec.Offset)
			if rec.Attrs.IsControl() {
				return
			}
			if rec.Value == nil {
				r.pending.remove(string(rec.Key))
				return
			}
			st, err := r.cfg.Decoder.DecodeSessionState(rec.Value)
			if err != nil {
				r.log.Warn("reconciler skips undecodable session state", slog.String("session_id", string(rec.Key)),
					slog.Int64("offset", rec.Offset), slog.Any("error", err))
				return
			}
			r.pending.apply(st, rec.Partition, rec.Timestamp)
			if IsStaleMarker(rec.Headers) {
				// This replica's marker, or another's before a rebalance or
				// a restart: the session is not polled again.
				r.pending.markStale(codec.VersionOf(st))
			}
		})
		cl.AllowRebalance()
	}
}

// scan starts a worker for every due session, at most MaxInFlight at once,
// and now and then forgets the sessions behind the horizon.
func (r *Reconciler) scan(ctx context.Context) error {
	sem := make(chan struct{}, r.cfg.MaxInFlight)
	t := time.NewTicker(r.cfg.Tick)
	defer t.Stop()
	var swept time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		now := r.cfg.Now()
		swept = r.sweep(now, swept)
		free := cap(sem) - len(sem)
		for _, task := range r.pending.due(now, free) {
			sem <- struct{}{}
			r.workers.Add(1)
			go func() {
				defer func() { <-sem; r.workers.Done() }()
				r.run(ctx, task)
			}()
		}
	}
}

// backoff doubles from QuietAfter up to MaxBackoff.
func (r *Reconciler) backoff(misses int) time.Duration {
	return retry.Doubling{Initial: r.cfg.QuietAfter, Max: r.cfg.MaxBackoff}.After(misses)
}
