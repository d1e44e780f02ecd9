package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/kafka"
)

// transact runs one batch inside one transaction: Begin → execute the lanes
// under the batch deadline → produce outcomes and retry records → End. It
// returns an error only when the transaction's end is unknown, which the
// caller answers by rebuilding the session.
func (p *Pipeline) transact(ctx context.Context, s *kgo.GroupTransactSession, recs []*kgo.Record) (*batch, error) {
	phase := p.clock.Now()
	lap := func(name string) {
		now := p.clock.Now()
		p.metrics.txnPhase.WithLabelValues(name).Observe(now.Sub(phase).Seconds())
		phase = now
	}
	// Reading the records may ask the schema registry: bounded like a batch.
	readCtx, readCancel := context.WithTimeout(context.Background(), p.cfg.BatchDeadline)
	b := p.newBatch(readCtx, recs)
	readCancel()
	if p.assigned.Swap(false) {
		p.marks.invalidate() // another instance may have marked our new partitions
	}
	now := p.clock.Now()
	// No call starts without a durable mark covering it (attempts.go).
	markErr := p.marks.cover(ctx, b.ins, func(in *inbound) bool { return in.decodeErr == nil && !p.keyTooOld(in, now) })
	if err := s.Begin(); err != nil {
		endSpans(startCommitSpan(b), b, "abort")
		return b, fmt.Errorf("begin transaction: %w", err)
	}
	lap("marks")
	if markErr == nil {
		bctx, cancel := p.batchContext(ctx)
		p.runBatch(bctx, b)
		cancel()
	}
	lap("calls")

	p.mu.Lock()
	revoked := p.revoked
	p.cancelBatch, p.revoked = nil, false
	p.mu.Unlock()

	commit := !revoked
	writeErr := markErr
	if markErr != nil {
		p.log.Warn("attempt marks not written; aborting without calling the API", slog.Any("error", markErr))
		commit = false
	}
	if commit {
		if writeErr = p.produce(ctx, s, b); writeErr != nil {
			p.log.Warn("producing outcomes failed; aborting", slog.Any("error", writeErr))
			commit = false
		}
		lap("produce")
	}
	endCtx, endCancel := context.WithTimeout(context.Background(), p.cfg.TransactionTimeout)
	defer endCancel()
	commitSpan := startCommitSpan(b)
	committed, err := s.End(endCtx, kgo.TransactionEndTry(commit))
	lap("end")
	p.settler.ended()
	endSpans(commitSpan, b, transactionEnd(committed, err))
	switch {
	case err != nil:
		// The commit may have happened (franz-go issues 1052, 1207): the
		// caller rebuilds the session, which re-reads committed offsets.
		p.metrics.transactions.WithLabelValues("unknown").Inc()
		p.log.Error("transaction end unknown", slog.Int("records", len(recs)), slog.Any("error", err))
		return b, fmt.Errorf("end transaction: %w", err)
	case committed:
		p.metrics.transactions.WithLabelValues("commit").Inc()
		p.writes.committed()
		p.kept.forget(b)
		p.parked.apply(b.parkedChanges())
		p.countCommitted(b)
	default:
		p.metrics.transactions.WithLabelValues("abort").Inc()
		p.log.Info("transaction aborted; records will be redelivered", slog.Int("records", len(recs)), slog.Bool("revoked", revoked))
		p.reseed = true // a rebalance may have moved retry partitions
		if writeErr != nil {
			p.kept.keep(b) // its redelivered commands are not sent again (replay.go)
			if p.writes.failed(writeErr) {
				return b, errWritesBlocked
			}
		}
	}
	return b, nil
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
	p.mu.Lock()
	p.cancelBatch = cancel
	p.mu.Unlock()
	return bctx, func() { stop(); cancel() }
}

// produce writes the batch's records into the open transaction and waits for
// every acknowledgement.
func (p *Pipeline) produce(ctx context.Context, s *kgo.GroupTransactSession, b *batch) error {
	pctx, cancel := context.WithTimeout(context.Background(), p.cfg.TransactionTimeout/2)
	defer cancel()
	recs, err := p.recordsOf(pctx, b)
	if err != nil {
		return err
	}
	p.settler.settle(pctx) // the previous transaction's markers (settle.go)
	if r, err := kafka.ProduceAll(pctx, s, recs); err != nil {
		if r != nil {
			return &topicError{Topic: r.Topic, Err: err}
		}
		return fmt.Errorf("produce outcomes: %w", err)
	}
	return nil
}

// countCommitted updates the per-command metrics of a committed batch.
func (p *Pipeline) countCommitted(b *batch) {
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
