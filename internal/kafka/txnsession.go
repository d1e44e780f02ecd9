package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A transactional consumer-group session that ends without a heartbeat.
//
// kgo.GroupTransactSession.End, once the offsets' TxnOffsetCommit is
// answered, forces a Heartbeat and waits for it before EndTxn, so that a
// rebalance could not hand the offsets to another member before the
// transaction's markers are written. Against a broker with KIP-447 (Kafka
// 2.5 on) that round trip proves nothing the broker does not already
// enforce: TxnOffsetCommit carries the member id and generation and is
// refused from a member that is no longer the partitions' owner, and a
// member taking partitions over fetches their offsets with require_stable,
// which the broker answers UNSTABLE_OFFSET_COMMIT until every transaction
// holding offsets for the group has ended. franz-go's End itself commits
// when that Heartbeat answers REBALANCE_IN_PROGRESS, for that reason. On the
// pipeline's path the Heartbeat was one of End's three sequential round
// trips, about a millisecond of every commit under load.
//
// TxnSession is that End without the Heartbeat, and otherwise the same
// protocol: a revoke or loss since the last End aborts the next one; the
// callbacks for them wait while End runs from its last check to EndTxn's
// answer, so a rebalance cannot complete in between; the offsets are
// committed only after every record of the transaction is acknowledged;
// an EndTxn refused in a way an abort answers is retried as an abort. What
// the caller must do itself: say exactly which offsets a commit carries (End's
// fill), and after an abort set the client's positions back (kgo.Client.
// SetOffsets): the session keeps no offsets of its own.

// TxnSession is a transactional consumer-group session whose End sends no
// Heartbeat (see above). Produce, Flush and Begin must not run concurrently
// with End.
type TxnSession struct {
	cl       *kgo.Client
	txnID    string
	group    string
	instance *string
	// implicitOffsets: TxnOffsetCommit adds the group to the transaction
	// itself (KIP-890 part 2: transaction.version 2 finalized on every
	// broker, TxnOffsetCommit v5); otherwise AddOffsetsToTxn goes first.
	implicitOffsets bool

	mu       sync.Mutex // the revoke and loss callbacks; End from its last check through EndTxn
	failed   bool       // partitions were revoked or lost since the last End
	produced atomic.Bool
}

// txnHeartbeat is the session's heartbeat interval, whatever opts say.
// While the group prepares a rebalance the coordinator still accepts the
// offset commits of the current generation, so a member that keeps
// committing learns of the rebalance from a heartbeat only, and the
// rebalance (a member joining or leaving) waits for it. End's forced
// Heartbeat told it at the next commit; the session's own heartbeats tell
// it within this interval, at two requests a second instead of one per
// transaction.
const txnHeartbeat = 500 * time.Millisecond

// errNoKIP447 refuses a cluster whose brokers cannot fence a stale offset
// commit (TxnOffsetCommit below v3: Kafka before 2.5).
var errNoKIP447 = errors.New("every broker must support TxnOffsetCommit v3 (KIP-447, Kafka 2.5 or later) for exactly-once consuming")

// errOffsetsWithoutRecords: a commit whose transaction produced nothing
// cannot carry offsets here (kgo ends such a transaction without an EndTxn).
var errOffsetsWithoutRecords = errors.New("offsets to commit in a transaction that produced no record")

// NewTxnSession builds the session's client from opts, which must name a
// consumer group and a transactional id and must not set
// OnPartitionsRevoked or OnPartitionsLost: onTakenAway is called for both,
// with the session's lock held. Its heartbeat interval is txnHeartbeat.
// It initializes the producer id (initProducerID) and reads the brokers'
// API versions, waiting at most timeout. An error of the options wraps
// ErrOptions.
func NewTxnSession(timeout time.Duration, onTakenAway func(context.Context, *kgo.Client, map[string][]int32), opts ...kgo.Opt) (*TxnSession, error) {
	s := &TxnSession{}
	taken := func(ctx context.Context, cl *kgo.Client, parts map[string][]int32) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(parts) > 0 {
			s.failed = true
		}
		if onTakenAway != nil {
			onTakenAway(ctx, cl, parts)
		}
	}
	cl, err := kgo.NewClient(append(slices.Clone(opts), kgo.OnPartitionsRevoked(taken), kgo.OnPartitionsLost(taken),
		kgo.HeartbeatInterval(txnHeartbeat))...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	s.cl = cl
	s.group, _ = cl.OptValue(kgo.ConsumerGroup).(string)
	s.txnID, _ = cl.OptValue(kgo.TransactionalID).(string)
	if vs := cl.OptValues(kgo.InstanceID); len(vs) == 2 && vs[1] == true {
		id, _ := vs[0].(string)
		s.instance = &id
	}
	if s.group == "" || s.txnID == "" {
		cl.Close()
		return nil, fmt.Errorf("%w: a transactional session needs a consumer group and a transactional id", ErrOptions)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err = initProducerID(ctx, cl)
	if err == nil {
		err = s.readVersions(ctx)
	}
	if err != nil {
		cl.Close()
		return nil, err
	}
	return s, nil
}

// readVersions learns from every broker that answers whether the cluster
// fences stale offset commits (required) and whether TxnOffsetCommit adds
// the group to the transaction itself.
func (s *TxnSession) readVersions(ctx context.Context) error {
	vs, err := kadm.NewClient(s.cl).ApiVersions(ctx)
	if err != nil {
		return fmt.Errorf("broker api versions: %w", err)
	}
	answered, implicit := 0, true
	var firstErr error
	for _, v := range vs.Sorted() {
		if v.Err != nil {
			if firstErr == nil {
				firstErr = v.Err
			}
			continue
		}
		answered++
		max, ok := v.KeyMaxVersion(int16(kmsg.TxnOffsetCommit))
		if !ok || max < 3 {
			return fmt.Errorf("%w: %w (broker %d)", ErrOptions, errNoKIP447, v.NodeID)
		}
		if max < 5 || !finalized(v.Raw(), "transaction.version", 2) {
			implicit = false
		}
	}
	if answered == 0 {
		return fmt.Errorf("broker api versions: no broker answered: %w", firstErr)
	}
	s.implicitOffsets = implicit
	return nil
}

// finalized reports whether the cluster's finalized level of feature is at
// least level, as an ApiVersions answer gives it.
func finalized(resp *kmsg.ApiVersionsResponse, feature string, level int16) bool {
	if resp == nil {
		return false
	}
	for _, f := range resp.FinalizedFeatures {
		if f.Name == feature {
			return f.MaxVersionLevel >= level
		}
	}
	return false
}

// Client is the session's client: for polling, pausing, positions and
// group metadata; not for beginning or ending transactions.
func (s *TxnSession) Client() *kgo.Client { return s.cl }

// Close leaves the group and closes the client.
func (s *TxnSession) Close() { s.cl.Close() }

// PollRecords is the client's PollRecords. Not concurrently with End.
func (s *TxnSession) PollRecords(ctx context.Context, maxPollRecords int) kgo.Fetches {
	return s.cl.PollRecords(ctx, maxPollRecords)
}

// Begin begins a transaction.
func (s *TxnSession) Begin() error {
	s.produced.Store(false)
	return s.cl.BeginTransaction()
}

// Produce produces r in the open transaction, noting when one is
// acknowledged (End commits offsets only beside records).
func (s *TxnSession) Produce(ctx context.Context, r *kgo.Record, promise func(*kgo.Record, error)) {
	s.cl.Produce(ctx, r, func(r *kgo.Record, err error) {
		if err == nil {
			s.produced.Store(true)
		}
		promise(r, err)
	})
}

// Flush waits for every buffered record to be acknowledged or failed.
func (s *TxnSession) Flush(ctx context.Context) error { return s.cl.Flush(ctx) }

// End ends the open transaction, committing when commit is true, no
// partition was revoked or lost since the last End, and the offset commit
// succeeds; otherwise it aborts. A commit first waits for every produced
// record, then commits the offsets that fill writes into the request (its
// topics and partitions; an empty request commits no offsets), then ends.
// It returns whether the transaction committed. An error is final for the
// session, as for kgo.GroupTransactSession.End: the client's producer
// failed, or ctx ended, and the end may then be unknown. Canceling ctx
// while End runs is only for shutting down.
func (s *TxnSession) End(ctx context.Context, commit bool, fill func(*kmsg.TxnOffsetCommitRequest)) (committed bool, err error) {
	if commit {
		if err := s.cl.Flush(ctx); err != nil {
			return false, err // ctx ended: nothing is aborted here, the caller rebuilds the session
		}
	} else if err := s.cl.AbortBufferedRecords(ctx); err != nil {
		return false, err
	}

	var commitErr error
	abortable := false
	if commit && !s.hasFailed() {
		// A refusal that an abort answers is not an error: the records
		// are consumed again (kgo.GroupTransactSession.End alike).
		if abortable, commitErr = s.commitOffsets(ctx, fill); abortable {
			commitErr = nil
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	try := commit && !s.failed && !abortable && commitErr == nil
	s.failed = false // a revoke from here on waits for EndTxn and counts for the next End
	try, endErr := s.endTxn(ctx, try)
	switch {
	case endErr != nil:
		return false, endErr
	case commitErr != nil:
		return false, commitErr
	default:
		return try, nil
	}
}

func (s *TxnSession) hasFailed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

// endTxn ends the transaction, retrying as an abort when the commit was
// not attempted or is refused in a way an abort answers (franz-go's End
// does the same), and returns whether it last tried to commit.
func (s *TxnSession) endTxn(ctx context.Context, commit bool) (bool, error) {
	for tries := 1; ; tries++ {
		err := s.cl.EndTransaction(ctx, kgo.TransactionEndTry(commit))
		if err == nil || tries == maxEndTries || !abortAnswers(err) {
			return commit, err
		}
		commit = false
	}
}

// maxEndTries bounds EndTxn's retries as an abort.
const maxEndTries = 10

// abortAnswers reports whether an EndTxn error is answered by ending the
// transaction with an abort instead: the commit was not attempted, the
// broker asks for an abort (a topic recreated during the transaction
// included), or the outcome is unconfirmed (UNKNOWN_SERVER_ERROR; the
// retry reports it as not committed).
func abortAnswers(err error) bool {
	return errors.Is(err, kerr.OperationNotAttempted) || errors.Is(err, kerr.TransactionAbortable) ||
		errors.Is(err, kerr.UnknownServerError)
}

// commitOffsets adds the offsets fill writes to the open transaction. A
// failure is abortable when every refusal in it means "abort and consume
// again" (a rebalance, a coordinator moving: franz-go's list).
func (s *TxnSession) commitOffsets(ctx context.Context, fill func(*kmsg.TxnOffsetCommitRequest)) (abortable bool, err error) {
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.TransactionalID, req.Group, req.InstanceID = s.txnID, s.group, s.instance
	req.MemberID, req.Generation = s.cl.GroupMetadata()
	if fill != nil {
		fill(req)
	}
	if len(req.Topics) == 0 {
		return false, nil
	}
	if !s.produced.Load() {
		return false, errOffsetsWithoutRecords
	}
	id, epoch, err := s.cl.ProducerID(ctx)
	if err != nil {
		return false, fmt.Errorf("commit offsets: %w", err)
	}
	req.ProducerID, req.ProducerEpoch = id, epoch
	if err := s.fillTopicIDs(ctx, req); err != nil {
		return false, fmt.Errorf("commit offsets: %w", err)
	}
	if !s.implicitOffsets {
		add := kmsg.NewPtrAddOffsetsToTxnRequest()
		add.TransactionalID, add.ProducerID, add.ProducerEpoch, add.Group = s.txnID, id, epoch, s.group
		resp, err := add.RequestWith(ctx, s.cl)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		if err != nil {
			return abortableCommit(err), fmt.Errorf("add offsets to transaction: %w", err)
		}
	}
	resp, err := req.RequestWith(ctx, s.cl)
	if err != nil {
		return abortableCommit(err), fmt.Errorf("commit offsets: %w", err)
	}
	var errs []error
	abortable = true
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				abortable = abortable && abortableCommit(err)
				errs = append(errs, fmt.Errorf("topic %s partition %d: %w", topicName(t, req), p.Partition, err))
			}
		}
	}
	if len(errs) == 0 {
		return false, nil
	}
	return abortable, fmt.Errorf("commit offsets: %w", errors.Join(errs...))
}

// fillTopicIDs gives every topic of req its id, from the cluster's
// metadata where fill left it out: from v6 on, TxnOffsetCommit names topics
// by id only, and one without would commit nothing.
func (s *TxnSession) fillTopicIDs(ctx context.Context, req *kmsg.TxnOffsetCommitRequest) error {
	var missing []string
	for _, t := range req.Topics {
		if t.TopicID == ([16]byte{}) {
			missing = append(missing, t.Topic)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	td, err := kadm.NewClient(s.cl).ListTopics(ctx, missing...)
	if err != nil {
		return fmt.Errorf("topic ids: %w", err)
	}
	for i := range req.Topics {
		t := &req.Topics[i]
		if t.TopicID != ([16]byte{}) {
			continue
		}
		d, ok := td[t.Topic]
		switch {
		case !ok:
			return fmt.Errorf("topic id of %s: not in the metadata", t.Topic)
		case d.Err != nil:
			return fmt.Errorf("topic id of %s: %w", t.Topic, d.Err)
		}
		t.TopicID = d.ID
	}
	return nil
}

// topicName names a response topic: from TxnOffsetCommit v6 on, the
// response gives the topic's id only.
func topicName(t kmsg.TxnOffsetCommitResponseTopic, req *kmsg.TxnOffsetCommitRequest) string {
	if t.Topic != "" {
		return t.Topic
	}
	for _, rt := range req.Topics {
		if rt.TopicID == t.TopicID {
			return rt.Topic
		}
	}
	return fmt.Sprintf("%x", t.TopicID)
}

// abortableCommit reports whether an offset commit's refusal is answered
// by aborting and consuming the records again: a rebalance began or ended
// before the commit, the coordinator forgot or moved the member, or the
// transaction must abort. The list is franz-go's (GroupTransactSession.End).
func abortableCommit(err error) bool {
	for _, e := range []error{
		kerr.IllegalGeneration, kerr.UnknownMemberID, kerr.StaleMemberEpoch, kerr.GroupIDNotFound,
		kerr.RebalanceInProgress, kerr.CoordinatorNotAvailable, kerr.CoordinatorLoadInProgress,
		kerr.NotCoordinator, kerr.ConcurrentTransactions, kerr.UnknownServerError, kerr.TransactionAbortable,
	} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
