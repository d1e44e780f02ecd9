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

// transact ends a running batch inside one transaction: wait for its lanes
// → Begin → produce outcomes and retry records → poll and start the next
// batch → End, committing exactly this batch's offsets. The next batch's
// calls run while this transaction ends; it is returned to be ended next,
// or nil. transact returns an error only when the transaction's end is
// unknown, which the caller answers by rebuilding the session.
func (p *Pipeline) transact(ctx context.Context, s *kafka.TxnSession, r *running) (b *batch, next *running, err error) {
	phase := p.clock.Now()
	lap := func(name string) {
		now := p.clock.Now()
		p.metrics.txnPhase.WithLabelValues(name).Observe(now.Sub(phase).Seconds())
		phase = now
	}
	b = r.b
	<-r.done
	r.cancel()
	lap("calls")

	revoked := p.batchDone()
	if err := s.Begin(); err != nil {
		endSpans(startCommitSpan(b), b, "abort")
		return b, nil, fmt.Errorf("begin transaction: %w", err)
	}
	commit := !revoked
	writeErr := r.markErr
	if r.markErr != nil {
		p.log.Warn("attempt marks not written; aborting without calling the API", slog.Any("error", r.markErr))
		commit = false
	}
	if commit {
		if writeErr = p.produce(ctx, s, b); writeErr != nil {
			p.log.Warn("producing outcomes failed; aborting", slog.Any("error", writeErr))
			commit = false
		}
		lap("produce")
	}
	if commit {
		// The parked set as this commit leaves it, for the next batch's
		// lanes; an abort rebuilds it from the retry topic (reseed).
		p.parked.apply(b.parkedChanges())
		next = p.pollAhead(ctx, s)
	}
	endCtx, endCancel := context.WithTimeout(context.Background(), p.cfg.TransactionTimeout)
	defer endCancel()
	commitSpan := startCommitSpan(b)
	committed, err := s.End(endCtx, commit, func(req *kmsg.TxnOffsetCommitRequest) { coverOnly(req, r.recs, p.topicIDs) })
	lap("end")
	p.settler.ended()
	endSpans(commitSpan, b, transactionEnd(committed, err))
	var dropped []*kgo.Record
	if committed && next != nil {
		p.hold(ctx, s)
	}
	if !committed {
		dropped = append(p.drop(next), p.held...) // and forget any revoke: nothing is in flight now
		next, p.held = nil, nil
	}
	switch {
	case err != nil:
		// The commit may have happened (franz-go issues 1052, 1207): the
		// caller rebuilds the session, which re-reads committed offsets.
		p.metrics.transactions.WithLabelValues("unknown").Inc()
		p.log.Error("transaction end unknown", slog.Int("records", len(r.recs)), slog.Any("error", err))
		return b, nil, fmt.Errorf("end transaction: %w", err)
	case committed:
		p.metrics.transactions.WithLabelValues("commit").Inc()
		p.writes.committed()
		p.kept.forget(b)
		p.countCommitted(b)
	default:
		p.metrics.transactions.WithLabelValues("abort").Inc()
		p.log.Info("transaction aborted; records will be redelivered", slog.Int("records", len(r.recs)), slog.Bool("revoked", revoked))
		rewind(s.Client(), r.recs, dropped)
		p.reseed = true // a rebalance may have moved retry partitions; the parked set is rebuilt
		if writeErr != nil {
			p.kept.keep(b) // its redelivered commands are not sent again (replay.go)
			if p.writes.failed(writeErr) {
				return b, nil, errWritesBlocked
			}
		}
	}
	return b, next, nil
}

// pollAhead takes the records held and those already fetched, without
// waiting for more, and starts them as the next batch, so that their marks
// and calls run while the current transaction ends (mayTakeAhead says
// when it takes nothing).
func (p *Pipeline) pollAhead(ctx context.Context, s *kafka.TxnSession) *running {
	if !p.mayTakeAhead(ctx) {
		return nil
	}
	recs, err := p.takeHeld(fetched, s)
	if err != nil || len(recs) == 0 {
		return nil
	}
	p.metrics.pollAhead.Inc()
	return p.start(ctx, recs)
}

// hold takes, without waiting, the records fetched while a transaction
// ended and keeps them, not started, for the next batch. franz-go buffers
// one fetch per broker and sends the next one only once that is taken, so
// under a steady flow the records that reach the broker during an End were
// not even requested until the poll ahead after it: they waited a whole
// extra transaction. Taking the buffered fetch right after End requests
// them while the next transaction's produce runs, and the poll ahead finds
// them. A held record is consumed (the client's position is past it) but
// not called: an abort forgets it and rewinds it with its batch (transact:
// the session sets no position back itself), a revoke releases it
// (pollHeld).
func (p *Pipeline) hold(ctx context.Context, s *kafka.TxnSession) {
	if !p.mayTakeAhead(ctx) {
		return
	}
	_ = p.fill(fetched, s) // a closed client fails the next poll
	p.owned.setLags(p.metrics.observeLag(p.ends, nil, p.held))
}

// releaseHeld gives the held records back to the client: its position
// returns to the first of them on every partition still assigned.
func (p *Pipeline) releaseHeld(s *kafka.TxnSession) {
	if len(p.held) > 0 {
		rewind(s.Client(), p.held)
		p.held = nil
	}
}

// mayTakeAhead reports whether records may be taken from the client while
// a transaction is open or ending. Not while the pipeline stops, while the
// API is failing (the Run loop pauses fetching), once a revoke is pending,
// or after an assignment: then the attempt marks are read back first
// (attempts.go), which is not work to do while a transaction is open; nor
// once a topic's limit changed: the session ends after this transaction
// (limits.go); nor once an operator's pause moved: it is obeyed between
// two transactions (pause.go).
func (p *Pipeline) mayTakeAhead(ctx context.Context) bool {
	if ctx.Err() != nil || p.assigned.Load() || p.limitsMoved() || p.pauseMoved() {
		return false
	}
	if bad, _ := p.health.unhealthy(); bad {
		return false
	}
	return !p.revokePending()
}

// revokePending reports whether a revoke hit the running batch and is not
// yet answered by an abort.
func (p *Pipeline) revokePending() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.revoked
}

// batchDone forgets the running batch's cancel and reports whether a revoke
// hit it (and forgets the revoke too: the batch's transaction answers it).
func (p *Pipeline) batchDone() (revoked bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	revoked = p.revoked
	p.cancelBatch, p.revoked = nil, false
	return revoked
}

// fetched is the nil context that makes a poll take only the records already
// fetched, at once (kgo.Client.PollRecords).
var fetched context.Context

// drop stops the batch started ahead of a transaction that did not commit
// (r may be nil): its calls are cancelled and awaited, and nothing of it is
// produced; its records are returned to be consumed again. A revoke seen
// until now is answered by that abort and forgotten.
func (p *Pipeline) drop(r *running) []*kgo.Record {
	if r != nil {
		r.cancel()
		<-r.done
		endSpans(startCommitSpan(r.b), r.b, "abort")
	}
	p.batchDone()
	if r == nil {
		return nil
	}
	return r.recs
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
func (p *Pipeline) produce(ctx context.Context, s *kafka.TxnSession, b *batch) error {
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

// countCommitted updates the per-command metrics of a committed batch, and
// the last error of each partition Status shows.
func (p *Pipeline) countCommitted(b *batch) {
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
