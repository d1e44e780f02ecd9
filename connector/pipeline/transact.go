package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/paysession/paysession/internal/kafka"
)

// running is a batch whose calls have started: its attempt marks are
// written (or failed, and then nothing was called) and its lanes run beside
// the Run goroutine, which meanwhile may still end the previous transaction.
type running struct {
	b       *batch
	recs    []*kgo.Record
	markErr error
	done    chan struct{} // closed when every lane is done
	cancel  context.CancelFunc
}

// start reads polled records into a batch, writes the attempt marks that
// must cover its calls (attempts.go) and starts its lanes under the batch
// deadline. It runs on the Run goroutine.
func (p *Pipeline) start(ctx context.Context, recs []*kgo.Record) *running {
	begin := p.clock.Now()
	// Reading the records may ask the schema registry: bounded like a batch.
	readCtx, readCancel := context.WithTimeout(context.Background(), p.cfg.BatchDeadline)
	b := p.newBatch(readCtx, recs)
	readCancel()
	if p.assigned.Swap(false) {
		p.marks.invalidate() // another instance may have marked our new partitions
	}
	now := p.clock.Now()
	// No call starts without a durable mark covering it (attempts.go; its
	// write is bounded by BatchDeadline).
	r := &running{b: b, recs: recs, done: make(chan struct{}), cancel: func() {}}
	r.markErr = p.marks.cover(ctx, b.ins, func(in *inbound) bool { return in.decodeErr == nil && !p.keyTooOld(in, now) })
	p.metrics.txnPhase.WithLabelValues("marks").Observe(p.clock.Now().Sub(begin).Seconds())
	if r.markErr != nil {
		close(r.done)
		return r
	}
	bctx, cancel := p.batchContext(ctx)
	r.cancel = cancel
	go func() {
		defer close(r.done)
		p.runBatch(bctx, b)
	}()
	return r
}

// transact ends a running batch inside one transaction: wait for its
// calls → Begin → produce its outcomes and retry records → poll and start
// the next batch (ahead) → End, committing exactly this batch's offsets.
// The next batch's calls run while this transaction ends; it is returned
// to be ended next, or nil. transact returns an error only when the
// transaction's end is unknown, which the caller answers by rebuilding the
// session.
func (p *Pipeline) transact(ctx context.Context, s *kafka.TxnSession, r *running) (b *batch, next *running, err error) {
	lap := p.laps()
	b = r.b
	<-r.done
	r.cancel()
	lap("calls")

	revoked := p.revokes.done()
	if err := s.Begin(); err != nil {
		endSpans(startCommitSpan(b), b, "abort")
		return b, nil, fmt.Errorf("begin transaction: %w", err)
	}
	// Readiness fails when the writes take longer than a batch deadline
	// (writes.go); Writable reads the wall clock, so this does too.
	p.writes.began(time.Now())
	defer p.writes.ended()
	writeErr := r.markErr
	switch {
	case writeErr != nil:
		p.log.Warn("attempt marks not written; aborting without calling the API", slog.Any("error", writeErr))
	case !revoked:
		writeErr = p.produce(ctx, s, b)
		lap("produce")
	}
	commit := !revoked && writeErr == nil
	if commit {
		// The parked set as this commit leaves it, for the next batch's
		// lanes; an abort rebuilds it from the retry topic (parkedSet.stale).
		p.parked.apply(b.parkedChanges())
		next = p.ahead.pollAhead(ctx, s)
	}
	endCtx, endCancel := context.WithTimeout(context.Background(), p.cfg.TransactionTimeout)
	defer endCancel()
	commitSpan := startCommitSpan(b)
	committed, err := s.End(endCtx, commit, func(req *kmsg.TxnOffsetCommitRequest) { coverOnly(req, r.recs, p.ahead.ids) })
	lap("end")
	p.settler.ended()
	endSpans(commitSpan, b, transactionEnd(committed, err))
	next, dropped := p.ahead.ended(ctx, s, committed, next)
	switch {
	case err != nil:
		// The commit may have happened (franz-go issues 1052, 1207): the
		// caller rebuilds the session, which re-reads committed offsets.
		p.metrics.transactions.WithLabelValues("unknown").Inc()
		p.log.Error("transaction end unknown", slog.Int("records", len(r.recs)), slog.Any("error", err))
		return b, nil, fmt.Errorf("end transaction: %w", err)
	case committed:
		p.committed(b)
		return b, next, nil
	default:
		return b, nil, p.aborted(s, r, revoked, writeErr, dropped)
	}
}

// laps returns a function that observes, under a phase's name, the time
// since its previous call (at first: since laps).
func (p *Pipeline) laps() func(phase string) {
	last := p.clock.Now()
	return func(phase string) {
		now := p.clock.Now()
		p.metrics.txnPhase.WithLabelValues(phase).Observe(now.Sub(last).Seconds())
		last = now
	}
}

// committed keeps what a committed transaction changed: the write health,
// the outcomes kept from an aborted write (now published), the per-command
// metrics and the last error of each partition Status shows.
func (p *Pipeline) committed(b *batch) {
	p.metrics.transactions.WithLabelValues("commit").Inc()
	p.writes.committed()
	p.kept.forget(b)
	p.owned.committed(b.outcomes, p.clock.Now())
	for _, out := range b.outcomes {
		if out.park != nil {
			continue
		}
		p.metrics.commands.WithLabelValues(out.in.kind, string(out.verdict.Status)).Inc()
		if out.verdict.deadLetter {
			p.metrics.deadLetters.Inc()
		}
	}
}

// aborted answers a transaction that ended without committing: the batch's
// records and those dropped after it are rewound to be consumed again, the
// parked set is rebuilt before the next poll (a rebalance may have moved
// retry partitions), and when the write failed the batch's outcomes are
// kept, so that its redelivered commands are not sent again (replay.go).
// It returns errWritesBlocked once writes failed too often (writes.go).
func (p *Pipeline) aborted(s *kafka.TxnSession, r *running, revoked bool, writeErr error, dropped []*kgo.Record) error {
	p.metrics.transactions.WithLabelValues("abort").Inc()
	p.log.Info("transaction aborted; records will be redelivered", slog.Int("records", len(r.recs)), slog.Bool("revoked", revoked))
	rewind(s.Client(), r.recs, dropped)
	p.parked.stale = true
	if writeErr != nil {
		p.kept.keep(r.b)
		if p.writes.failed(writeErr) {
			return errWritesBlocked
		}
	}
	return nil
}

// batchContext bounds a batch by BatchDeadline, by ShutdownGrace once ctx
// ends, and by a revoke. It does not derive from ctx: on shutdown the batch
// finishes or parks its work and still commits.
func (p *Pipeline) batchContext(ctx context.Context) (context.Context, context.CancelFunc) {
	bctx, cancel := context.WithTimeout(context.Background(), p.cfg.BatchDeadline)
	stop := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(p.cfg.ShutdownGrace, cancel)
		context.AfterFunc(bctx, func() { t.Stop() })
	})
	p.revokes.running(cancel)
	return bctx, func() { stop(); cancel() }
}

// produce writes the batch's records into the open transaction and waits for
// every acknowledgement. An error aborts the transaction.
func (p *Pipeline) produce(ctx context.Context, s *kafka.TxnSession, b *batch) (err error) {
	defer func() {
		if err != nil {
			p.log.Warn("producing outcomes failed; aborting", slog.Any("error", err))
		}
	}()
	pctx, cancel := context.WithTimeout(context.Background(), p.cfg.TransactionTimeout/2)
	defer cancel()
	recs, err := p.recordsOf(pctx, b)
	if err != nil {
		return err
	}
	p.settler.settle(pctx) // the previous transaction's markers (settle.go)
	if r, err := kafka.ProduceAll(pctx, s, recs); err != nil {
		p.cfg.Sizer.Refused(err)
		if r != nil {
			return &topicError{Topic: r.Topic, Err: err}
		}
		return fmt.Errorf("produce outcomes: %w", err)
	}
	return nil
}
