package pipeline

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/retry"
)

// Waiting for the previous transaction without stalling.
//
// One transactional producer has one transaction open at a time, so two
// transactions of the pipeline are never open together. What overlaps is the
// rest: the next batch is polled ahead and its marks and calls run while a
// transaction ends (transact.go, offsets.go), and when End returns the
// broker has only written the commit (PrepareCommit) to the transaction log;
// the markers that make the results readable go to the partitions after
// that.
//
// The next transaction's first record must not reach a partition leader
// before the previous transaction is complete: the leader verifies the record's
// transaction with the coordinator, which answers CONCURRENT_TRANSACTIONS
// while the previous one is still PrepareCommit, and the leader retries the
// verification only after add.partitions.to.txn.retry.backoff.ms (20 ms by
// default). Measured on one broker at 100 commands/s, one transaction in
// ten hit that wait, and every command polled behind it waited too: a
// minimal poll → produce → End loop had p90 40 ms, p99 60 ms of readable
// latency; asking the coordinator first brought it to p90 5 ms, p99 18 ms.
// So as soon as a transaction ends, the settler asks the coordinator
// (DescribeTransactions, one round trip each) until the transaction is no
// longer preparing its end, beside the next batch's work, and the next
// transaction's first produce waits for that answer.

// settleMaxWait bounds the wait for the previous transaction: past it the
// produce goes ahead and the broker's own retry takes over.
const settleMaxWait = 100 * time.Millisecond

// settleFirstAsk is how long after End the settler first asks. Asking at
// once was answered PrepareCommit nearly every time: 2.3 requests per
// transaction at 100 commands/s on one broker, 1.39 when the first ask
// waits 500 µs (1.11 at 1 ms), with the same end-to-end throughput; in four
// paired paced runs the connector's p99 was lower each time (26.7 ms mean
// against 21.4). The wait runs beside the next batch's work, so only a
// next produce that is ready sooner waits for it.
const settleFirstAsk = 500 * time.Microsecond

// txnSettler learns, while the next batch runs, when the previous
// transaction of the transactional id is complete, and holds the next
// transaction's first produce until then. ended and settle are called by the
// Run goroutine only; the asking runs beside it.
type txnSettler struct {
	adm  *kadm.Client
	id   string
	done chan struct{} // closed once the last ended transaction is complete (or not worth waiting for); nil: none pending
	off  atomic.Bool   // the coordinator cannot be asked (no DescribeTransactions): never wait
	log  *slog.Logger
}

func newTxnSettler(cl *kgo.Client, id string, log *slog.Logger) *txnSettler {
	return &txnSettler{adm: kadm.NewClient(cl), id: id, log: log}
}

// ended records that a transaction ended (committed or aborted) and starts
// asking the coordinator when it is complete: its markers may still be on
// their way.
func (t *txnSettler) ended() {
	if t.off.Load() {
		t.done = nil
		return
	}
	done := make(chan struct{})
	t.done = done
	go func() {
		defer close(done)
		t.await()
	}()
}

// settle returns once the previous transaction is complete, or settleMaxWait
// after it ended, or when ctx ends; at once when it was seen complete already.
func (t *txnSettler) settle(ctx context.Context) {
	if t.done == nil {
		return
	}
	select {
	case <-t.done:
		t.done = nil
	case <-ctx.Done():
	}
}

// await asks the coordinator, from settleFirstAsk on, until the
// transaction is no longer preparing its end, for at most settleMaxWait.
func (t *txnSettler) await() {
	ctx, cancel := context.WithTimeout(context.Background(), settleMaxWait)
	defer cancel()
	if !sleepCtx(ctx, settleFirstAsk) {
		return
	}
	pauses := retry.Doubling{Initial: 100 * time.Microsecond, Max: 2 * time.Millisecond}
	for asked := 0; ; asked++ {
		d, err := t.adm.DescribeTransactions(ctx, t.id)
		if err == nil {
			err = d[t.id].Err
		}
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && sessionRetriable(err):
			return // not this time (a broker restart): the broker's retry covers it
		case err != nil:
			// A missing Describe permission or another final error: the
			// pipeline works as before, only without the shortcut.
			if !t.off.Swap(true) {
				t.log.Info("cannot describe the pipeline's transaction; producing without waiting for the previous one to complete", slog.Any("error", err))
			}
			return
		case !strings.HasPrefix(d[t.id].State, "Prepare"):
			return
		}
		if !sleepCtx(ctx, pauses.After(asked)) {
			return
		}
	}
}
