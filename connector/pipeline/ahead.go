package pipeline

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/topics"
	"github.com/paysession/paysession/internal/kafka"
)

// ahead takes the running session's records: the next batch's, and, while
// a transaction is open or ends, the batch after it. Once a transaction's
// records are produced, it polls ahead: it takes the records held and
// those already fetched and starts them as the next batch, so that their
// marks and calls run while the transaction ends. Right after End it holds:
// it takes the fetch buffered meanwhile and keeps it, not started, for the
// batch after (hold). An End that does not commit drops both (ended).
//
// It keeps what it took and no batch took yet (held; held.go says how
// batches are taken from them) and what the session's fetches taught: the
// partitions' ends (for the lag) and the topics' ids (for the commit,
// offsets.go). It is touched only by the Run goroutine.
type ahead struct {
	turns   turns
	may     func(context.Context) bool                    // Pipeline.mayTakeAhead
	begin   func(context.Context, []*kgo.Record) *running // Pipeline.start
	revokes *revokes
	metrics *metrics
	owned   *ownedPartitions
	writes  *writeHealth
	log     *slog.Logger

	held []*kgo.Record // consumed from the client, not started
	ends fetchEnds     // the running session's, from its fetches
	ids  topicIDs      // the running session's, from its fetches
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
	return !p.revokes.pending()
}

// fetched is the nil context that makes a poll take only the records already
// fetched, at once (kgo.Client.PollRecords).
var fetched context.Context

// reset forgets the previous session: its client consumed the held records,
// and the next one starts at the committed offsets.
func (a *ahead) reset() {
	a.held, a.ends, a.ids = nil, fetchEnds{}, topicIDs{}
}

// pollAhead takes the records held and those already fetched, without
// waiting for more, and starts them as the next batch (nil: none; may
// says when it takes nothing).
func (a *ahead) pollAhead(ctx context.Context, s *kafka.TxnSession) *running {
	if !a.may(ctx) {
		return nil
	}
	recs, err := a.take(fetched, s)
	if err != nil || len(recs) == 0 {
		return nil
	}
	a.metrics.pollAhead.Inc()
	return a.begin(ctx, recs)
}

// ended settles what was taken ahead of a transaction once it ended. After
// a commit the next batch (nil: none was polled ahead) runs on, and the
// records fetched meanwhile are held for the batch after it (hold). After
// anything else the next batch is dropped and the held records are
// forgotten: both are returned, to be rewound with the transaction's own
// (the session sets no position back itself), and a revoke seen until now
// is answered by that abort.
func (a *ahead) ended(ctx context.Context, s *kafka.TxnSession, committed bool, next *running) (*running, []*kgo.Record) {
	if committed {
		if next != nil {
			a.hold(ctx, s)
		}
		return next, nil
	}
	dropped := append(a.drop(next), a.held...)
	a.held = nil
	return nil, dropped
}

// hold takes, without waiting, the records fetched while a transaction
// ended and keeps them, not started, for the next batch. franz-go buffers
// one fetch per broker and sends the next one only once that is taken, so
// under a steady flow the records that reach the broker during an End were
// not even requested until the poll ahead after it: they waited a whole
// extra transaction. Taking the buffered fetch right after End requests
// them while the next transaction's produce runs, and the poll ahead finds
// them. A held record is consumed (the client's position is past it) but
// not called: an abort forgets it and rewinds it with its batch (ended), a
// revoke releases it (Pipeline.pollHeld).
func (a *ahead) hold(ctx context.Context, s *kafka.TxnSession) {
	if !a.may(ctx) {
		return
	}
	_ = a.fill(fetched, s) // a closed client fails the next poll
	a.owned.setLags(a.metrics.observeLag(a.ends, nil, a.held))
}

// drop stops a batch started ahead of a transaction that did not commit (r
// may be nil): its calls are cancelled and awaited, and nothing of it is
// produced; its records are returned to be consumed again. A revoke seen
// until now is answered by that abort and forgotten.
func (a *ahead) drop(r *running) []*kgo.Record {
	if r != nil {
		r.cancel()
		<-r.done
		endSpans(startCommitSpan(r.b), r.b, "abort")
	}
	a.revokes.done()
	if r == nil {
		return nil
	}
	return r.recs
}

// take returns the next batch: at most MaxPollRecords of the held records
// and of everything a poll under ctx adds, taken in turn from their
// partitions; the rest stay held (held.go). It polls only while fewer than
// MaxPollRecords that a batch may take are held.
func (a *ahead) take(ctx context.Context, s *kafka.TxnSession) ([]*kgo.Record, error) {
	err := a.fill(ctx, s)
	var recs []*kgo.Record
	recs, a.held = a.turns.take(a.held)
	a.owned.setLags(a.metrics.observeLag(a.ends, recs, a.held))
	return recs, err
}

// fill adds what one poll under ctx gets to the held records, unless a
// batch's worth (MaxPollRecords) is held already (held.go), noting fetch
// errors: a topic gone or unreadable fails the read health. A nil ctx
// takes only what is already fetched, at once. The error is final for the
// session (its client closed).
func (a *ahead) fill(ctx context.Context, s *kafka.TxnSession) error {
	if a.turns.full(a.held) {
		return nil
	}
	fetches := s.PollRecords(ctx, 0)
	if fetches.IsClientClosed() {
		return errors.New("kafka client closed")
	}
	fetches.EachError(func(t string, part int32, err error) {
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			a.log.Warn("fetch error", slog.String("topic", t), slog.Int("partition", int(part)), slog.Any("error", err))
			if topics.Classify(err) == topics.TopicUnavailable { // gone or not readable
				a.writes.readFailed(t, err, time.Now())
			}
		}
	})
	a.ends.learn(fetches)
	a.ids.learn(fetches)
	a.held = append(a.held, fetches.Records()...)
	return nil
}

// release gives the held records that give names back to the client: its
// position returns to the first of them on every partition still assigned.
// It returns how many it gave back.
func (a *ahead) release(cl *kgo.Client, give func(*kgo.Record) bool) int {
	var keep, back []*kgo.Record
	for _, r := range a.held {
		if give(r) {
			back = append(back, r)
		} else {
			keep = append(keep, r)
		}
	}
	if len(back) > 0 {
		rewind(cl, back)
	}
	a.held = keep
	return len(back)
}
