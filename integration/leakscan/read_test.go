package leakscan_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
)

// sentinelKey marks the end of what the scan reads in each partition.
const sentinelKey = "leakscan-end-of-scan"

// readAll returns every record of topics, aborted ones included: the scan
// reads read_uncommitted because an aborted record's bytes sit in the log
// just the same. Call it once the writers stopped: it appends a sentinel
// record to every partition and reads until each partition's sentinel.
func readAll(t *testing.T, topics ...string) []*kgo.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	prod := harness.NewClient(t, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0))
	ends, err := kadm.NewClient(prod).ListEndOffsets(ctx, topics...)
	if err != nil {
		t.Fatalf("list end offsets: %v", err)
	}
	pending := map[string]map[int32]bool{}
	var sentinels []*kgo.Record
	ends.Each(func(o kadm.ListedOffset) {
		if pending[o.Topic] == nil {
			pending[o.Topic] = map[int32]bool{}
		}
		pending[o.Topic][o.Partition] = true
		sentinels = append(sentinels, &kgo.Record{Topic: o.Topic, Partition: o.Partition, Key: []byte(sentinelKey)})
	})
	if err := prod.ProduceSync(ctx, sentinels...).FirstErr(); err != nil {
		t.Fatalf("produce sentinels: %v", err)
	}
	cl := harness.NewClient(t, kgo.ConsumeTopics(topics...), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadUncommitted()))
	var out []*kgo.Record
	for left := len(sentinels); left > 0; {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("reading %v: %d partitions not read to their end", topics, left)
		}
		fs.EachError(func(topic string, p int32, err error) { t.Fatalf("fetch %s/%d: %v", topic, p, err) })
		fs.EachRecord(func(r *kgo.Record) {
			if string(r.Key) != sentinelKey {
				out = append(out, r)
			} else if pending[r.Topic][r.Partition] {
				delete(pending[r.Topic], r.Partition)
				left--
			}
		})
	}
	return out
}
