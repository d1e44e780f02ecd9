package pipeline

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// An End that does not commit drops the batch started ahead of it (its
// calls cancelled and awaited) and forgets the held records: both come back
// to be rewound with the transaction's own, the next batch's first, and
// nothing stays held or runs on. A record lost here would end without a
// result.
func TestAheadEndedWithoutCommitReturnsEverythingTaken(t *testing.T) {
	recs := func(offsets ...int64) []*kgo.Record {
		var rs []*kgo.Record
		for _, o := range offsets {
			rs = append(rs, &kgo.Record{Topic: "cmds", Offset: o})
		}
		return rs
	}
	cancelled := false
	done := make(chan struct{})
	close(done)
	next := &running{b: &batch{}, recs: recs(10, 11), done: done, cancel: func() { cancelled = true }}
	rv := &revokes{}
	rv.running(func() {})
	rv.revoke()
	a := &ahead{revokes: rv, held: recs(12, 13, 14)}

	got, dropped := a.ended(context.Background(), nil, false, next)
	if got != nil {
		t.Fatalf("the next batch runs on after an abort")
	}
	if !cancelled {
		t.Errorf("the next batch's calls were not cancelled")
	}
	var offs []int64
	for _, r := range dropped {
		offs = append(offs, r.Offset)
	}
	if want := []int64{10, 11, 12, 13, 14}; len(offs) != len(want) || offs[0] != 10 || offs[2] != 12 || offs[4] != 14 {
		t.Fatalf("dropped offsets %v, want %v (the next batch's, then the held)", offs, want)
	}
	if len(a.held) != 0 {
		t.Errorf("%d records still held after an abort", len(a.held))
	}
	if rv.pending() {
		t.Errorf("the revoke seen before the abort is still pending; the abort answers it")
	}
}

// After a commit with nothing polled ahead, nothing is held (no fetch is
// taken for a batch that does not exist) and nothing is returned.
func TestAheadEndedCommitWithoutNextBatchHoldsNothing(t *testing.T) {
	a := &ahead{revokes: &revokes{}, held: []*kgo.Record{{Offset: 3}},
		may: func(context.Context) bool { t.Fatal("hold asked to take records without a next batch"); return false }}
	got, dropped := a.ended(context.Background(), nil, true, nil)
	if got != nil || dropped != nil || len(a.held) != 1 {
		t.Fatalf("after a commit without a next batch: next %v, dropped %v, held %d; want nil, nil, 1", got, dropped, len(a.held))
	}
}
