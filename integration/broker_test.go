package integration

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
)

// These tests prove that the broker the harness gives is a real Kafka with the features the
// connector relies on: consumer groups, read_committed isolation and transactions that commit
// records and consumer offsets atomically.

func TestMain(m *testing.M) { harness.Main(m) }

const waitFor = 60 * time.Second

func TestBrokerConsumerGroupResumesAfterCommit(t *testing.T) {
	cl := harness.NewClient(t)
	topic := harness.Topic(t, cl, 2)
	group := unique("group")
	produce(t, cl, topic, "first-", 10)

	first := groupMember(t, group, topic)
	got := consume(t, first, 10)
	if err := first.CommitUncommittedOffsets(context.Background()); err != nil {
		t.Fatalf("commit offsets: %v", err)
	}
	first.Close() // leaves the group, so the next member is assigned at once
	if want := values("first-", 10); !sameSet(got, want) {
		t.Fatalf("first member got %v, want %v", got, want)
	}

	produce(t, cl, topic, "second-", 5)
	again := consume(t, groupMember(t, group, topic), 5)
	if want := values("second-", 5); !sameSet(again, want) {
		t.Fatalf("second member got %v, want only records after the committed offsets %v", again, want)
	}
}

func TestBrokerAbortedRecordsNeverReadCommitted(t *testing.T) {
	cl := harness.NewClient(t)
	topic := harness.Topic(t, cl, 1)
	producer := harness.NewClient(t, kgo.TransactionalID(unique("txn")), kgo.DefaultProduceTopic(topic))
	transaction(t, producer, "aborted-", 5, kgo.TryAbort)
	transaction(t, producer, "committed-", 5, kgo.TryCommit)

	committed := consume(t, reader(t, topic, kgo.ReadCommitted()), 5)
	if want := values("committed-", 5); !slices.Equal(committed, want) {
		t.Fatalf("read_committed got %v, want %v", committed, want)
	}
	// The aborted records did reach the log: a read_uncommitted reader sees them.
	all := consume(t, reader(t, topic, kgo.ReadUncommitted()), 10)
	if want := append(values("aborted-", 5), values("committed-", 5)...); !slices.Equal(all, want) {
		t.Fatalf("read_uncommitted got %v, want %v", all, want)
	}
}

func TestBrokerGroupTransactCommitsRecordsAndOffsets(t *testing.T) {
	cl := harness.NewClient(t)
	in, out := harness.Topic(t, cl, 1), harness.Topic(t, cl, 1)
	group := unique("group")
	produce(t, cl, in, "in-", 5)

	sess := transactSession(t, group, in, out)
	relay(t, sess, out, 5, kgo.TryCommit)
	sess.Close()

	// End returns once the broker accepted the commit; the group coordinator
	// shows the transaction's offsets once the commit marker reached the
	// offsets topic, a moment later.
	harness.Eventually(t, waitFor, fmt.Sprintf("committed offset of %s = 5", in), func() bool {
		return committedOffset(t, cl, group, in) == 5
	})
	outVals := consume(t, reader(t, out, kgo.ReadCommitted()), 5)
	if want := values("out-in-", 5); !slices.Equal(outVals, want) {
		t.Fatalf("output after commit = %v, want %v", outVals, want)
	}
	produce(t, cl, in, "later-", 1)
	next := consumeRecords(t, groupMember(t, group, in), 1)
	if next[0].Offset != 5 || string(next[0].Value) != "later-0" {
		t.Fatalf("new member resumed at offset %d (%s), want 5 (later-0)", next[0].Offset, next[0].Value)
	}
}

func TestBrokerGroupTransactAbortLeavesNothing(t *testing.T) {
	cl := harness.NewClient(t)
	in, out := harness.Topic(t, cl, 1), harness.Topic(t, cl, 1)
	group := unique("group")
	produce(t, cl, in, "in-", 3)

	sess := transactSession(t, group, in, out)
	relay(t, sess, out, 3, kgo.TryAbort)
	sess.Close()

	if got := committedOffset(t, cl, group, in); got != -1 {
		t.Fatalf("committed offset of %s = %d after abort, want none (-1)", in, got)
	}
	// A committed marker behind the aborted records: once a read_committed reader has it, it has
	// passed every position the aborted records held.
	marker := harness.NewClient(t, kgo.TransactionalID(unique("marker")), kgo.DefaultProduceTopic(out))
	transaction(t, marker, "marker-", 1, kgo.TryCommit)
	if got := consume(t, reader(t, out, kgo.ReadCommitted()), 1); !slices.Equal(got, []string{"marker-0"}) {
		t.Fatalf("output after abort = %v, want only the marker", got)
	}
	redo := consumeRecords(t, groupMember(t, group, in), 3)
	if redo[0].Offset != 0 {
		t.Fatalf("new member started at offset %d after abort, want 0", redo[0].Offset)
	}
}

func TestBrokerKillRestartKeepsData(t *testing.T) {
	b := harness.StartTestBroker(t, nil)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	topic := harness.Topic(t, cl, 1)
	produce(t, cl, topic, "kept-", 3)

	addr, pid := b.Addr(), b.Pid()
	if err := b.Kill(); err != nil {
		t.Fatalf("kill: %v", err)
	}
	if b.Running() || harness.ProcessAlive(pid) {
		t.Fatalf("broker pid %d still alive after Kill", pid)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := b.Restart(ctx); err != nil {
		t.Fatalf("restart: %v", err)
	}
	if b.Addr() != addr || b.Pid() == pid {
		t.Fatalf("after restart addr=%s pid=%d, want addr %s and a new pid", b.Addr(), b.Pid(), addr)
	}
	r, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	if got := consume(t, r, 3); !slices.Equal(got, values("kept-", 3)) {
		t.Fatalf("after restart read %v, want %v", got, values("kept-", 3))
	}
}

// transactSession is a consume-transform-produce session of group on topic in.
func transactSession(t *testing.T, group, in, out string) *kgo.GroupTransactSession {
	t.Helper()
	sess, err := kgo.NewGroupTransactSession(
		kgo.SeedBrokers(harness.Kafka(t)...),
		kgo.TransactionalID(unique("relay")),
		kgo.ConsumerGroup(group), kgo.ConsumeTopics(in),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DefaultProduceTopic(out),
	)
	if err != nil {
		t.Fatalf("transact session: %v", err)
	}
	t.Cleanup(sess.Close)
	return sess
}

// relay polls n records from the session, produces "out-"+value for each in one transaction, and
// ends it with end, checking that it committed exactly when asked to.
func relay(t *testing.T, sess *kgo.GroupTransactSession, out string, n int, end kgo.TransactionEndTry) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	var polled []*kgo.Record
	for len(polled) < n {
		fs := sess.PollFetches(ctx)
		if err := fetchErr(fs); err != nil {
			t.Fatalf("poll %d of %d records: %v", len(polled), n, err)
		}
		polled = append(polled, fs.Records()...)
	}
	if err := sess.Begin(); err != nil {
		t.Fatalf("begin: %v", err)
	}
	for _, r := range polled {
		rec := &kgo.Record{Topic: out, Key: r.Key, Value: []byte("out-" + string(r.Value))}
		if err := sess.ProduceSync(ctx, rec).FirstErr(); err != nil {
			t.Fatalf("produce in transaction: %v", err)
		}
	}
	committed, err := sess.End(ctx, end)
	if err != nil {
		t.Fatalf("end transaction: %v", err)
	}
	if committed != bool(end) {
		t.Fatalf("transaction committed=%v, want %v", committed, bool(end))
	}
}

// transaction produces n records prefix0..prefixN-1 in one transaction ended with end.
func transaction(t *testing.T, cl *kgo.Client, prefix string, n int, end kgo.TransactionEndTry) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatalf("begin: %v", err)
	}
	for _, v := range values(prefix, n) {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatalf("produce in transaction: %v", err)
		}
	}
	if err := cl.EndTransaction(ctx, end); err != nil {
		t.Fatalf("end transaction: %v", err)
	}
}

// produce writes n records prefix0..prefixN-1 to topic (key = value) and waits for their acks.
func produce(t *testing.T, cl *kgo.Client, topic, prefix string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	var rs []*kgo.Record
	for _, v := range values(prefix, n) {
		rs = append(rs, &kgo.Record{Topic: topic, Key: []byte(v), Value: []byte(v)})
	}
	if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		t.Fatalf("produce to %s: %v", topic, err)
	}
}

// groupMember is a read_committed member of group consuming topic from the start when the group has
// no committed offset, with offsets committed only when the test says so.
func groupMember(t *testing.T, group, topic string) *kgo.Client {
	t.Helper()
	return harness.NewClient(t, kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.DisableAutoCommit(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
}

// reader consumes topic from the start without a group at the given isolation level.
func reader(t *testing.T, topic string, level kgo.IsolationLevel) *kgo.Client {
	t.Helper()
	return harness.NewClient(t, kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(level),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
}

// consume polls until it has n records and returns their values in the order received.
func consume(t *testing.T, cl *kgo.Client, n int) []string {
	t.Helper()
	var vals []string
	for _, r := range consumeRecords(t, cl, n) {
		vals = append(vals, string(r.Value))
	}
	return vals
}

// consumeRecords polls until it has at least n records (failing after waitFor) and returns them.
func consumeRecords(t *testing.T, cl *kgo.Client, n int) []*kgo.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	var rs []*kgo.Record
	for len(rs) < n {
		fs := cl.PollFetches(ctx)
		if err := fetchErr(fs); err != nil {
			t.Fatalf("consumed %d of %d records: %v", len(rs), n, err)
		}
		rs = append(rs, fs.Records()...)
	}
	return rs
}

func fetchErr(fs kgo.Fetches) error {
	var errs []error
	fs.EachError(func(topic string, p int32, err error) {
		errs = append(errs, fmt.Errorf("%s[%d]: %w", topic, p, err))
	})
	return errors.Join(errs...)
}

// committedOffset returns the offset group committed on partition 0 of topic, -1 when none.
func committedOffset(t *testing.T, cl *kgo.Client, group, topic string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	offs, err := kadm.NewClient(cl).FetchOffsets(ctx, group)
	if err == nil {
		err = offs.Error()
	}
	if err != nil {
		t.Fatalf("fetch offsets of %s: %v", group, err)
	}
	o, ok := offs.Lookup(topic, 0)
	if !ok {
		return -1
	}
	return o.At
}

func values(prefix string, n int) []string {
	vs := make([]string, n)
	for i := range vs {
		vs[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return vs
}

func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(a, b)
}

func unique(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}
