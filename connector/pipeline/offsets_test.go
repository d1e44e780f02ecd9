package pipeline

import (
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func rec(topic string, part int32, off int64, epoch int32) *kgo.Record {
	return &kgo.Record{Topic: topic, Partition: part, Offset: off, LeaderEpoch: epoch}
}

// The commit End would build names what was polled (here also a batch
// polled ahead, on a partition the ending batch has and on one it has not);
// it must carry exactly the ending batch's offsets.
func TestCoverOnlyCommitsTheEndingBatch(t *testing.T) {
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.MemberID = "member-1"
	polled := kmsg.NewTxnOffsetCommitRequestTopic()
	polled.Topic = "commands"
	for _, p := range []int32{0, 1, 2} {
		tp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
		tp.Partition, tp.Offset = p, 99
		polled.Partitions = append(polled.Partitions, tp)
	}
	req.Topics = append(req.Topics, polled)
	recs := []*kgo.Record{
		rec("commands", 1, 12, 3), rec("retry", 0, 7, 1), rec("commands", 1, 10, 3),
		rec("commands", 0, 41, 2), rec("commands", 1, 14, 4), rec("commands", 1, 13, 3),
	}
	ids := topicIDs{"commands": {1}, "retry": {2}}
	coverOnly(req, recs, ids)

	type part struct {
		Partition   int32
		Offset      int64
		LeaderEpoch int32
	}
	got := map[string][]part{}
	for _, topic := range req.Topics {
		if topic.TopicID != ids[topic.Topic] {
			t.Errorf("topic %s: id %v, want %v", topic.Topic, topic.TopicID, ids[topic.Topic])
		}
		for _, p := range topic.Partitions {
			if p.Metadata == nil || *p.Metadata != "member-1" {
				t.Errorf("%s/%d: metadata %v, want the member id", topic.Topic, p.Partition, p.Metadata)
			}
			got[topic.Topic] = append(got[topic.Topic], part{p.Partition, p.Offset, p.LeaderEpoch})
		}
	}
	want := map[string][]part{
		"commands": {{0, 42, 2}, {1, 15, 4}}, // partition 2 was only polled ahead: not committed
		"retry":    {{0, 8, 1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("committed %v, want %v", got, want)
	}
}

// After an abort every partition of the uncommitted batches rewinds to the
// first of their records.
func TestFirstOffsetsOfUncommittedBatches(t *testing.T) {
	ending := []*kgo.Record{rec("commands", 0, 20, 2), rec("commands", 0, 21, 2), rec("commands", 1, 5, 1)}
	ahead := []*kgo.Record{rec("commands", 0, 22, 2), rec("commands", 2, 9, 3), rec("retry", 0, 3, 1)}
	got := firstOffsets(ending, ahead)
	want := map[string]map[int32]kgo.EpochOffset{
		"commands": {0: {Epoch: 2, Offset: 20}, 1: {Epoch: 1, Offset: 5}, 2: {Epoch: 3, Offset: 9}},
		"retry":    {0: {Epoch: 1, Offset: 3}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rewind to %v, want %v", got, want)
	}
}
