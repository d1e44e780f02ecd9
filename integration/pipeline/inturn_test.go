package pipeline_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/pipeline"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/paysim"
)

// TestBackloggedPartitionsTakenInTurn: a backlog on two partitions of the
// broker's command topic is called a batch at a time from both, not one
// partition's backlog after the other's (connector/pipeline/held.go). The
// broker answers the pipeline's first fetch with both partitions' records,
// which franz-go hands out partition by partition.
func TestBackloggedPartitionsTakenInTurn(t *testing.T) {
	const perPartition = 100
	e := newEnv(t, envOptions{kinds: []codec.CommandKind{codec.KindInitPayment}, partitions: 2,
		faults: paysim.Faults{Latency: 5 * time.Millisecond}})
	partitionOf := map[string]int32{}
	var recs []*kgo.Record
	for part := range int32(2) {
		for i := range perPartition {
			k := fmt.Sprintf("turn-%s-%d-%03d", e.id, part, i)
			r := e.command(codec.KindInitPayment, k, initPaymentJSON(cardSuccess, 1000+i))
			r.Partition = part
			partitionOf[k] = part
			recs = append(recs, r)
		}
	}
	e.cl = harness.NewClient(t, kgo.RecordPartitioner(kgo.ManualPartitioner())) // the records name their partitions
	e.produce(t, recs...)
	const maxPoll = 8
	e.start(t, func(c *pipeline.Config) { c.Concurrency, c.MaxPollRecords = 4, maxPoll })
	e.out.count(t, len(recs), 2*time.Minute)

	calls := e.proxy.forwarded()
	slices.SortFunc(calls, func(a, b call) int { return a.Start.Compare(b.Start) })
	first := map[int32]int{}
	n := 0
	for _, c := range calls {
		part, ok := partitionOf[c.Key]
		if !ok {
			continue
		}
		if _, seen := first[part]; !seen {
			first[part] = n
		}
		n++
	}
	if n != len(recs) {
		t.Fatalf("%d calls for %d commands", n, len(recs))
	}
	for part := range int32(2) {
		if i, ok := first[part]; !ok || i >= 2*maxPoll {
			t.Errorf("partition %d's first call was call %d of %d (called: %v), want within the first two batches (%d)", part, i, n, ok, 2*maxPoll)
		}
	}
}
