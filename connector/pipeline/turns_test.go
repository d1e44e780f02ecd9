package pipeline

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/header"
)

// TestTurnsHoldBackARetryLanePastItsCap: a batch takes at most perLane
// retry records of one lane, and the retry partition's part of the batch
// stays a prefix: it stops at the first record past its lane's cap, other
// lanes' records behind it included. Command partitions are not capped
// (their lanes are known only once read: the lanes park what is past the
// cap).
func TestTurnsHoldBackARetryLanePastItsCap(t *testing.T) {
	retry := func(part int32, off int64, lane string) *kgo.Record {
		return &kgo.Record{Topic: "retry", Partition: part, Offset: off, Headers: []kgo.RecordHeader{header.New(header.Lane, lane)}}
	}
	cmd := func(off int64) *kgo.Record { return &kgo.Record{Topic: "capture", Offset: off} }
	name := func(rs []*kgo.Record) string {
		var out []string
		for _, r := range rs {
			out = append(out, fmt.Sprintf("%s%d@%d", r.Topic[:1], r.Partition, r.Offset))
		}
		return strings.Join(out, " ")
	}
	// As franz-go hands them out: partition by partition. Retry partition
	// 0 has lane a's flood with b and c in it; partition 1 has lane d's.
	recs := []*kgo.Record{retry(0, 0, "s:a"), retry(0, 1, "s:a"), retry(0, 2, "s:b"), retry(0, 3, "s:a"),
		retry(0, 4, "s:c"), retry(1, 0, "s:d"), cmd(0), cmd(1), cmd(2)}
	for _, tc := range []struct {
		name        string
		t           turns
		batch, held string
		full        bool
	}{
		{name: "no cap", t: turns{size: 20, retry: "retry"}, batch: name(recs), held: ""},
		{name: "cap 2", t: turns{size: 20, retry: "retry", perLane: 2},
			batch: "r0@0 r0@1 r0@2 r1@0 c0@0 c0@1 c0@2", held: "r0@3 r0@4"},
		{name: "cap 1", t: turns{size: 20, retry: "retry", perLane: 1},
			batch: "r0@0 r1@0 c0@0 c0@1 c0@2", held: "r0@1 r0@2 r0@3 r0@4"},
		{name: "cap 1, batch of 2", t: turns{size: 2, retry: "retry", perLane: 1},
			batch: "r0@0 r1@0", held: "r0@1 r0@2 r0@3 r0@4 c0@0 c0@1 c0@2", full: true},
		{name: "another retry topic", t: turns{size: 20, retry: "other", perLane: 1}, batch: name(recs), held: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			batch, held := tc.t.take(slices.Clone(recs))
			if got := name(batch); got != tc.batch {
				t.Errorf("batch %s, want %s", got, tc.batch)
			}
			if got := name(held); got != tc.held {
				t.Errorf("held %s, want %s", got, tc.held)
			}
			if got := tc.t.full(held); got != tc.full {
				t.Errorf("full(held) = %v, want %v", got, tc.full)
			}
		})
	}
}

// TestTurnsFull: records a lane's cap holds back do not stop the polls;
// heldBatches batches' worth of held records in all do.
func TestTurnsFull(t *testing.T) {
	flood := func(n int) []*kgo.Record {
		var rs []*kgo.Record
		for i := range n {
			rs = append(rs, &kgo.Record{Topic: "retry", Offset: int64(i), Headers: []kgo.RecordHeader{header.New(header.Lane, "s:a")}})
		}
		return rs
	}
	tr := turns{size: 4, retry: "retry", perLane: 2}
	if tr.full(flood(4*heldBatches - 1)) {
		t.Error("a held-back flood stops the polls")
	}
	if !tr.full(flood(4 * heldBatches)) {
		t.Errorf("%d batches' worth held: polls go on", heldBatches)
	}
	if !tr.full(append(flood(3), &kgo.Record{Topic: "capture"}, &kgo.Record{Topic: "capture", Offset: 1})) {
		t.Error("4 records a batch may take held (2 of the flood, 2 commands): polls go on")
	}
}
