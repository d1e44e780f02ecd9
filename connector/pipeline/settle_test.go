package pipeline

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// describeAnswers makes the cluster answer DescribeTransactions for id with
// the given states, then with "CompleteCommit"; an error code instead of a
// state when code is set. It returns the number of requests seen.
func describeAnswers(c *kfake.Cluster, id string, code int16, states ...string) *atomic.Int32 {
	var n atomic.Int32
	c.ControlKey(int16(kmsg.DescribeTransactions), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		i := int(n.Add(1)) - 1
		resp := req.(*kmsg.DescribeTransactionsRequest).ResponseKind().(*kmsg.DescribeTransactionsResponse)
		st := kmsg.NewDescribeTransactionsResponseTransactionState()
		st.TransactionalID, st.State, st.ErrorCode = id, "CompleteCommit", code
		if i < len(states) {
			st.State = states[i]
		}
		resp.TransactionStates = append(resp.TransactionStates, st)
		return resp, nil, true
	})
	return &n
}

func newSettlerOn(t *testing.T) (*kfake.Cluster, *txnSettler) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return c, newTxnSettler(cl, "txn-1", slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// TestSettleWaitsForTheEndedTransaction: after a transaction ended, settle
// returns only once the coordinator no longer reports it preparing its
// end; without an ended transaction it asks nothing.
func TestSettleWaitsForTheEndedTransaction(t *testing.T) {
	c, st := newSettlerOn(t)
	n := describeAnswers(c, "txn-1", 0, "PrepareCommit", "PrepareCommit", "PrepareAbort")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st.settle(ctx)
	if got := n.Load(); got != 0 {
		t.Fatalf("settle before any transaction ended asked %d times; want 0", got)
	}
	st.ended()
	st.settle(ctx)
	if got := n.Load(); got != 4 {
		t.Errorf("settle returned after %d answers; want 4 (three preparing, then complete)", got)
	}
	st.settle(ctx) // seen complete: nothing pending
	if got := n.Load(); got != 4 {
		t.Errorf("a second settle asked again (%d answers); want none", got)
	}
}

// TestSettleStopsAskingOnAFinalError: a coordinator that refuses the
// question (no Describe permission) turns the wait off for the session.
func TestSettleStopsAskingOnAFinalError(t *testing.T) {
	c, st := newSettlerOn(t)
	n := describeAnswers(c, "txn-1", kerr.TransactionalIDAuthorizationFailed.Code)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st.ended()
	st.settle(ctx)
	if !st.off.Load() {
		t.Fatal("settler still on after an authorization failure")
	}
	st.ended()
	st.settle(ctx)
	if got := n.Load(); got != 1 {
		t.Errorf("asked %d times; want 1 (never again after the refusal)", got)
	}
}

// TestSettleFirstAsksAfterAPause: the first DescribeTransactions goes out
// settleFirstAsk after the end, by which time the transaction is usually
// complete: a coordinator that completes it 400 µs after the end is asked
// once (asking at once took two or three requests).
func TestSettleFirstAsksAfterAPause(t *testing.T) {
	c, st := newSettlerOn(t)
	const completes = 400 * time.Microsecond
	var ended atomic.Int64 // unix ns of the end
	var n atomic.Int32
	c.ControlKey(int16(kmsg.DescribeTransactions), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		n.Add(1)
		resp := req.(*kmsg.DescribeTransactionsRequest).ResponseKind().(*kmsg.DescribeTransactionsResponse)
		s := kmsg.NewDescribeTransactionsResponseTransactionState()
		s.TransactionalID, s.State = "txn-1", "CompleteCommit"
		if time.Since(time.Unix(0, ended.Load())) < completes {
			s.State = "PrepareCommit"
		}
		resp.TransactionStates = append(resp.TransactionStates, s)
		return resp, nil, true
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st.ended() // a first end, long complete: the client connects
	st.settle(ctx)
	n.Store(0)
	ended.Store(time.Now().UnixNano())
	st.ended()
	st.settle(ctx)
	if waited := time.Since(time.Unix(0, ended.Load())); waited < completes {
		t.Errorf("settle returned %v after the end, before the transaction completed", waited)
	}
	if got := n.Load(); got != 1 {
		t.Errorf("DescribeTransactions requests = %d, want 1: the first ask waits until the transaction is likely complete", got)
	}
}
