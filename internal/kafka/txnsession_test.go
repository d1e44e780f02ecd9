package kafka

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// requestLog records the keys of the requests a client writes while on,
// and the times of its heartbeats all the time.
type requestLog struct {
	on         atomic.Bool
	mu         sync.Mutex
	keys       []int16
	heartbeats []time.Time
}

func (l *requestLog) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if err == nil && key == int16(kmsg.Heartbeat) {
		l.mu.Lock()
		l.heartbeats = append(l.heartbeats, time.Now())
		l.mu.Unlock()
	}
	if err == nil && l.on.Load() {
		l.mu.Lock()
		l.keys = append(l.keys, key)
		l.mu.Unlock()
	}
}

// count returns how many requests of key were written while on.
func (l *requestLog) count(key kmsg.Key) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, k := range l.keys {
		if k == int16(key) {
			n++
		}
	}
	return n
}

// txnFixture is a cluster with topic "in" (2 partitions, 3 records in
// partition 0) and topic "out".
func txnFixture(t *testing.T, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(2, "in"), kfake.SeedTopics(1, "out")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("in"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, v := range []string{"a", "b", "c"} {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(v), Partition: 0}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// sessionOpts are a session's options on c, with the request log's hook.
func sessionOpts(c *kfake.Cluster, log *requestLog) []kgo.Opt {
	return []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...), kgo.TransactionalID("t1"), kgo.ConsumerGroup("g1"),
		kgo.ConsumeTopics("in"), kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.WithHooks(log),
		kgo.HeartbeatInterval(20 * time.Second)} // no periodic heartbeat inside a test
}

// pollN polls until n records came.
func pollN(ctx context.Context, t *testing.T, cl *kgo.Client, n int) []*kgo.Record {
	t.Helper()
	var recs []*kgo.Record
	for len(recs) < n {
		fs := cl.PollRecords(ctx, n-len(recs))
		if ctx.Err() != nil {
			t.Fatalf("polled %d records of %d: %v", len(recs), n, ctx.Err())
		}
		recs = append(recs, fs.Records()...)
	}
	return recs
}

// newTestSession is a TxnSession on c with the request log's hook, closed
// when the test ends.
func newTestSession(t *testing.T, c *kfake.Cluster, log *requestLog, onTakenAway func(context.Context, *kgo.Client, map[string][]int32)) *TxnSession {
	t.Helper()
	s, err := NewTxnSession(10*time.Second, onTakenAway, sessionOpts(c, log)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// beginWith begins a transaction and produces one record to "out" in it.
func beginWith(ctx context.Context, t *testing.T, s interface{ Begin() error }, p Producer, value string) {
	t.Helper()
	if err := s.Begin(); err != nil {
		t.Fatal(err)
	}
	if _, err := ProduceAll(ctx, p, []*kgo.Record{{Topic: "out", Value: []byte(value)}}); err != nil {
		t.Fatal(err)
	}
}

// pollFor polls cl for at most d (its group work, such as a rebalance,
// goes on meanwhile).
func pollFor(ctx context.Context, cl *kgo.Client, d time.Duration) {
	pctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	cl.PollRecords(pctx, 1)
}

// afterHeartbeat returns right after a periodic heartbeat of the client:
// one that came at least half an interval after the one before it (a
// cooperative member heartbeats once more soon after it joins, and then
// two can come back to back), so the next is about txnHeartbeat away.
func afterHeartbeat(ctx context.Context, t *testing.T, cl *kgo.Client, log *requestLog) {
	t.Helper()
	periodicJustNow := func() bool {
		log.mu.Lock()
		defer log.mu.Unlock()
		n := len(log.heartbeats)
		return n >= 2 && log.heartbeats[n-1].Sub(log.heartbeats[n-2]) >= txnHeartbeat/2 &&
			time.Since(log.heartbeats[n-1]) < 5*time.Millisecond
	}
	for !periodicJustNow() {
		pollFor(ctx, cl, time.Millisecond)
		if ctx.Err() != nil {
			t.Fatal("no periodic heartbeat")
		}
	}
}

// commitUpTo fills a commit of "in" partition 0 up to offset.
func commitUpTo(offset int64) func(*kmsg.TxnOffsetCommitRequest) {
	return func(req *kmsg.TxnOffsetCommitRequest) {
		tp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
		tp.Partition, tp.Offset, tp.LeaderEpoch = 0, offset, -1
		t := kmsg.NewTxnOffsetCommitRequestTopic()
		t.Topic, t.Partitions = "in", []kmsg.TxnOffsetCommitRequestTopicPartition{tp}
		req.Topics = append(req.Topics, t)
	}
}

// committedIn returns the group's committed offset of "in" partition 0
// (-1: none), read with require_stable.
func committedIn(ctx context.Context, t *testing.T, c *kfake.Cluster) int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	os, err := kadm.NewClient(cl).FetchOffsets(ctx, "g1")
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := os.Lookup("in", 0); ok {
		return o.At
	}
	return -1
}

// TestTxnSessionEndSendsNoHeartbeat: End commits the records and exactly
// the offsets its fill writes, with TxnOffsetCommit and EndTxn and no
// Heartbeat; kgo.GroupTransactSession's End, on the same cluster, sends one
// (the round trip this session saves).
func TestTxnSessionEndSendsNoHeartbeat(t *testing.T) {
	c := txnFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	log := &requestLog{}
	s := newTestSession(t, c, log, nil)
	if !s.implicitOffsets {
		t.Error("kfake at its newest finalizes transaction.version 2: TxnOffsetCommit should add the offsets itself")
	}
	pollN(ctx, t, s.Client(), 3)
	beginWith(ctx, t, s, s, "result")
	// The session's own heartbeats come every txnHeartbeat: End runs
	// right after one, well inside the interval, so any Heartbeat in its
	// window would be End's.
	afterHeartbeat(ctx, t, s.Client(), log)
	log.on.Store(true)
	began := time.Now()
	committed, err := s.End(ctx, true, commitUpTo(2))
	log.on.Store(false)
	if err != nil || !committed {
		t.Fatalf("End = %v, %v; want committed", committed, err)
	}
	if d := time.Since(began); d > txnHeartbeat/2 {
		t.Fatalf("End took %s: too long to tell its requests from the periodic heartbeat", d)
	}
	for key, want := range map[kmsg.Key]int{kmsg.Heartbeat: 0, kmsg.TxnOffsetCommit: 1, kmsg.EndTxn: 1, kmsg.AddOffsetsToTxn: 0} {
		if got := log.count(key); got != want {
			t.Errorf("End sent %d %s requests, want %d", got, key.Name(), want)
		}
	}
	if got := committedIn(ctx, t, c); got != 2 {
		t.Errorf("committed offset of in/0 = %d, want 2 (what fill wrote, not the polled head 3)", got)
	}
	s.Close()

	// The control: franz-go's session forces a Heartbeat in End.
	ctrlLog := &requestLog{}
	gs, err := kgo.NewGroupTransactSession(append(sessionOpts(c, ctrlLog), kgo.TransactionalID("t2"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer gs.Close()
	pollN(ctx, t, gs.Client(), 1)
	beginWith(ctx, t, gs, gs.Client(), "result")
	ctrlLog.on.Store(true)
	if committed, err := gs.End(ctx, kgo.TryCommit); err != nil || !committed {
		t.Fatalf("control End = %v, %v", committed, err)
	}
	ctrlLog.on.Store(false)
	if ctrlLog.count(kmsg.Heartbeat) == 0 {
		t.Error("kgo.GroupTransactSession.End sent no Heartbeat: the request log cannot tell the two apart")
	}
}

// TestTxnSessionAddsOffsetsBeforeTransactionVersion2: on a cluster without
// KIP-890 part 2 (Kafka 3.9), End adds the group to the transaction
// (AddOffsetsToTxn) before committing its offsets.
func TestTxnSessionAddsOffsetsBeforeTransactionVersion2(t *testing.T) {
	c := txnFixture(t, kfake.MaxVersions(kversion.V3_9_0()))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	log := &requestLog{}
	s := newTestSession(t, c, log, nil)
	if s.implicitOffsets {
		t.Fatal("a Kafka 3.9 cluster taken for transaction.version 2")
	}
	pollN(ctx, t, s.Client(), 3)
	beginWith(ctx, t, s, s, "result")
	log.on.Store(true)
	if committed, err := s.End(ctx, true, commitUpTo(3)); err != nil || !committed {
		t.Fatalf("End = %v, %v; want committed", committed, err)
	}
	if got := log.count(kmsg.AddOffsetsToTxn); got != 1 {
		t.Errorf("End sent %d AddOffsetsToTxn, want 1", got)
	}
	if got := committedIn(ctx, t, c); got != 3 {
		t.Errorf("committed offset of in/0 = %d, want 3", got)
	}
}

// TestTxnSessionRefusesAClusterWithoutKIP447: a cluster whose
// TxnOffsetCommit cannot fence a stale member (Kafka 2.4) is refused at
// the start, naming KIP-447, as an options error (retrying cannot help).
func TestTxnSessionRefusesAClusterWithoutKIP447(t *testing.T) {
	c := txnFixture(t, kfake.MaxVersions(kversion.V2_4_0()))
	_, err := NewTxnSession(10*time.Second, nil, sessionOpts(c, &requestLog{})...)
	if !errors.Is(err, errNoKIP447) || !errors.Is(err, ErrOptions) {
		t.Fatalf("NewTxnSession on Kafka 2.4 = %v; want the KIP-447 refusal as an options error", err)
	}
}

// TestTxnSessionRevokeAbortsTheNextEnd: partitions taken away since the
// last End make the next End abort (its records and offsets are not
// committed) and call the caller's callback; the End after that commits.
func TestTxnSessionRevokeAbortsTheNextEnd(t *testing.T) {
	c := txnFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var takenAway atomic.Int32
	s := newTestSession(t, c, &requestLog{}, func(_ context.Context, _ *kgo.Client, parts map[string][]int32) {
		if len(parts) > 0 {
			takenAway.Add(1)
		}
	})
	pollN(ctx, t, s.Client(), 3)
	beginWith(ctx, t, s, s, "undone")

	// A second member joins: the cooperative rebalance takes one of the
	// two partitions away from s.
	other, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumerGroup("g1"), kgo.ConsumeTopics("in"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	go other.PollFetches(ctx)
	for takenAway.Load() == 0 {
		if ctx.Err() != nil {
			t.Fatal("no partition was revoked from the session")
		}
		pollFor(ctx, s.Client(), 50*time.Millisecond) // lets the session's rebalance proceed
	}

	committed, err := s.End(ctx, true, commitUpTo(3))
	if err != nil || committed {
		t.Fatalf("End after a revoke = %v, %v; want an abort", committed, err)
	}
	if got := committedIn(ctx, t, c); got != -1 {
		t.Errorf("committed offset of in/0 after the abort = %d, want none", got)
	}

	beginWith(ctx, t, s, s, "done")
	if committed, err := s.End(ctx, true, nil); err != nil || !committed {
		t.Fatalf("End after the aborted one = %v, %v; want committed", committed, err)
	}
}

// TestTxnSessionRefusesOffsetsWithoutRecords: offsets to commit in a
// transaction that produced nothing end it with an abort and an error (kgo
// would end it without an EndTxn and leave the offsets pending); the
// session can begin again.
func TestTxnSessionRefusesOffsetsWithoutRecords(t *testing.T) {
	c := txnFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := newTestSession(t, c, &requestLog{}, nil)
	pollN(ctx, t, s.Client(), 3)
	if err := s.Begin(); err != nil {
		t.Fatal(err)
	}
	committed, err := s.End(ctx, true, commitUpTo(3))
	if !errors.Is(err, errOffsetsWithoutRecords) || committed {
		t.Fatalf("End = %v, %v; want not committed and the error", committed, err)
	}
	if got := committedIn(ctx, t, c); got != -1 {
		t.Errorf("committed offset of in/0 = %d, want none", got)
	}
	if err := s.Begin(); err != nil {
		t.Fatalf("Begin after the refused commit: %v", err)
	}
}

// TestTxnSessionNoticesARebalanceWithinItsHeartbeat: a member that keeps
// committing learns that the group rebalances from its heartbeat (a commit
// with its generation is accepted while the group prepares the rebalance),
// so the session heartbeats every txnHeartbeat whatever the options say
// (20s here): a member that joins gets its partition within a second or
// two, not after the options' interval.
func TestTxnSessionNoticesARebalanceWithinItsHeartbeat(t *testing.T) {
	c := txnFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log := &requestLog{}
	s := newTestSession(t, c, log, nil)
	pollN(ctx, t, s.Client(), 3)
	afterHeartbeat(ctx, t, s.Client(), log) // the rebalance starts after one

	var assigned atomic.Bool
	other, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumerGroup("g1"), kgo.ConsumeTopics("in"),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, parts map[string][]int32) {
			if len(parts["in"]) > 0 {
				assigned.Store(true)
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	joined := time.Now()
	go other.PollFetches(ctx)
	for !assigned.Load() {
		if time.Since(joined) > 5*time.Second {
			t.Fatalf("the joining member got no partition %s after it joined: the committing session did not notice the rebalance", time.Since(joined))
		}
		beginWith(ctx, t, s, s, "result")
		if _, err := s.End(ctx, true, commitUpTo(3)); err != nil {
			t.Fatal(err)
		}
		pollFor(ctx, s.Client(), 20*time.Millisecond)
	}
}
