package pipeline

import (
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// What a transaction commits, and where an abort rewinds to.
//
// The pipeline polls the next batch before it ends a transaction
// (transact.go), so the client's polled head is past what the ending
// transaction covers. Two things keep the offsets exact:
//   - End's TxnOffsetCommit (kafka.TxnSession) carries exactly the ending
//     batch's offsets: per partition, one past its last record (coverOnly).
//     The request carries the member id and generation, and the broker
//     holds a rebalance's offset fetch until the transaction ends (KIP-447).
//   - After an abort the pipeline rewinds every partition of the batches it
//     did not commit to their first record (rewind): the session keeps no
//     offsets, and the client's position is past those batches.

// topicIDs maps a consumed topic to its id, learnt from fetches: a commit
// request names topics by id from TxnOffsetCommit v6 on.
type topicIDs map[string][16]byte

func (ids topicIDs) learn(f kgo.Fetches) {
	f.EachTopic(func(t kgo.FetchTopic) {
		if t.TopicID != ([16]byte{}) {
			ids[t.Topic] = t.TopicID
		}
	})
}

// coverOnly rewrites req's offsets to recs': per topic partition, one past
// the last of recs, at that record's leader epoch. Partitions without
// records are left as committed before.
func coverOnly(req *kmsg.TxnOffsetCommitRequest, recs []*kgo.Record, ids topicIDs) {
	last := edges(recs, func(r, cur *kgo.Record) bool { return r.Offset > cur.Offset })
	req.Topics = req.Topics[:0]
	for _, topic := range slices.Sorted(maps.Keys(last)) {
		t := kmsg.NewTxnOffsetCommitRequestTopic()
		t.Topic, t.TopicID = topic, ids[topic]
		for _, part := range slices.Sorted(maps.Keys(last[topic])) {
			r := last[topic][part]
			tp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
			tp.Partition, tp.Offset, tp.LeaderEpoch = part, r.Offset+1, r.LeaderEpoch
			tp.Metadata = &req.MemberID
			t.Partitions = append(t.Partitions, tp)
		}
		req.Topics = append(req.Topics, t)
	}
}

// rewind sets the consumer of every partition of the uncommitted batches'
// records back to the first of them, after an aborted transaction. A
// partition no longer assigned is skipped (its next owner reads the
// committed offset).
func rewind(cl *kgo.Client, batches ...[]*kgo.Record) { cl.SetOffsets(firstOffsets(batches...)) }

// firstOffsets returns, per topic partition, the position of the first of
// the batches' records.
func firstOffsets(batches ...[]*kgo.Record) map[string]map[int32]kgo.EpochOffset {
	first := edges(slices.Concat(batches...), func(r, cur *kgo.Record) bool { return r.Offset < cur.Offset })
	to := make(map[string]map[int32]kgo.EpochOffset, len(first))
	for topic, parts := range first {
		to[topic] = make(map[int32]kgo.EpochOffset, len(parts))
		for part, r := range parts {
			to[topic][part] = kgo.EpochOffset{Epoch: r.LeaderEpoch, Offset: r.Offset}
		}
	}
	return to
}

// edges picks, per topic partition, the record of recs that beats every
// other of its partition.
func edges(recs []*kgo.Record, beats func(r, cur *kgo.Record) bool) map[string]map[int32]*kgo.Record {
	m := make(map[string]map[int32]*kgo.Record)
	for _, r := range recs {
		parts := m[r.Topic]
		if parts == nil {
			parts = make(map[int32]*kgo.Record)
			m[r.Topic] = parts
		}
		if cur := parts[r.Partition]; cur == nil || beats(r, cur) {
			parts[r.Partition] = r
		}
	}
	return m
}
