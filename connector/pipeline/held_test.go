package pipeline

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A backlog on several partitions is worked off in turn: franz-go hands
// out a fetch's records partition by partition, and taking a batch's worth
// from its head made every other partition of the fetch wait until the
// first one's backlog was called (a replica taking over a dead one's
// partitions answered the last of them seconds after the first). One
// broker: both partitions come in one fetch (held.go says why another
// broker's fetch may still wait).
func TestRunTakesBackloggedPartitionsInTurn(t *testing.T) {
	env := newKfakeEnv(t, kfake.NumBrokers(1))
	api := &fakeAPI{}
	const perPartition = 120
	var recs []*kgo.Record
	for part := range int32(2) {
		for i := range perPartition {
			r := captureRecord(env.topics, fmt.Sprintf("key-%d-%04d", part, i), fmt.Sprintf("ps_%d", 1000*(part+1)+int32(i)))
			r.Partition = part
			recs = append(recs, r)
		}
	}
	env.produce(t, recs...) // the whole backlog is there before the pipeline fetches
	stop := env.start(t, api, func(c *Config) { c.Concurrency = 4 })
	env.resultsOnceEach(t, recs, 30*time.Second, stop)

	calls := api.callsTo("session/capture")
	if len(calls) != len(recs) {
		t.Fatalf("capture calls = %d, want %d", len(calls), len(recs))
	}
	first := map[string]int{}
	for i, c := range calls {
		part := "p" + strings.TrimPrefix(c.SessionID, "ps_")[:1]
		if _, ok := first[part]; !ok {
			first[part] = i
		}
	}
	// MaxPollRecords is 8: each partition's first call comes within the
	// first two batches, not after the other partition's 120.
	for _, part := range []string{"p1", "p2"} {
		if i, ok := first[part]; !ok || i >= 16 {
			t.Errorf("first call of partition %s was call %d of %d (seen %v), want within the first 16", part, i, len(calls), ok)
		}
	}
}

func TestInTurnTakesPrefixesOfEachPartition(t *testing.T) {
	rec := func(topic string, part int32, off int64) *kgo.Record {
		return &kgo.Record{Topic: topic, Partition: part, Offset: off}
	}
	// As franz-go hands them out: partition by partition.
	var recs []*kgo.Record
	for off := range int64(5) {
		recs = append(recs, rec("a", 0, off))
	}
	recs = append(recs, rec("a", 1, 7), rec("a", 1, 8), rec("b", 0, 3))
	name := func(rs []*kgo.Record) []string {
		var out []string
		for _, r := range rs {
			out = append(out, fmt.Sprintf("%s%d@%d", r.Topic, r.Partition, r.Offset))
		}
		return out
	}
	for _, tc := range []struct {
		n           int
		batch, held string
	}{
		{n: 1, batch: "a0@0", held: "a0@1 a0@2 a0@3 a0@4 a1@7 a1@8 b0@3"},
		{n: 4, batch: "a0@0 a0@1 a1@7 b0@3", held: "a0@2 a0@3 a0@4 a1@8"},
		{n: 6, batch: "a0@0 a0@1 a0@2 a1@7 a1@8 b0@3", held: "a0@3 a0@4"},
		{n: 8, batch: "a0@0 a0@1 a0@2 a0@3 a0@4 a1@7 a1@8 b0@3", held: ""},
		{n: 20, batch: "a0@0 a0@1 a0@2 a0@3 a0@4 a1@7 a1@8 b0@3", held: ""},
	} {
		batch, held := turns{size: tc.n}.take(slices.Clone(recs))
		if got := strings.Join(name(batch), " "); got != tc.batch {
			t.Errorf("n=%d: batch %s, want %s", tc.n, got, tc.batch)
		}
		if got := strings.Join(name(held), " "); got != tc.held {
			t.Errorf("n=%d: held %s, want %s", tc.n, got, tc.held)
		}
	}
}
