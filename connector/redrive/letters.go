package redrive

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
)

// maxIdlePolls ends a read whose partitions stopped short of their scope
// (idleFetch each): the records left were deleted while it read.
const maxIdlePolls = 20

// readLetters reads the dead-letter topic as far as a run's scope: each
// partition from its start to the last record present when the run
// started, read_committed, by explicit partition and offset. No consumer
// group is joined and no offset committed: a run's position is its own, so
// one run cannot move another past a letter (what is done is told by the
// redrive markers, marker.go). each receives the records of one poll.
func readLetters(ctx context.Context, opts []kgo.Opt, topic string, scope redriveScope, each func([]*kgo.Record) error) error {
	open := map[int32]kgo.Offset{}
	for p, last := range scope {
		if last >= 0 {
			open[p] = kgo.NewOffset().AtStart()
		}
	}
	if len(open) == 0 {
		return nil
	}
	cl, err := kgo.NewClient(append(append([]kgo.Opt{}, opts...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: open}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.FetchMaxWait(idleFetch/5))...)
	if err != nil {
		return fmt.Errorf("dead-letter reader: %w", err)
	}
	defer cl.Close()
	for idle := 0; len(open) > 0; {
		pctx, cancel := context.WithTimeout(ctx, idleFetch)
		fs := cl.PollRecords(pctx, 500)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		for _, fe := range fs.Errors() {
			if !errors.Is(fe.Err, context.DeadlineExceeded) {
				return fmt.Errorf("read dead letters %s/%d: %w", fe.Topic, fe.Partition, fe.Err)
			}
		}
		var in []*kgo.Record
		for _, r := range fs.Records() {
			if _, reading := open[r.Partition]; !reading || r.Offset > scope[r.Partition] {
				continue
			}
			in = append(in, r)
			if r.Offset == scope[r.Partition] {
				delete(open, r.Partition)
				cl.PauseFetchPartitions(map[string][]int32{topic: {r.Partition}})
			}
		}
		if len(in) == 0 {
			if idle++; idle >= maxIdlePolls {
				return fmt.Errorf("read dead letters: partitions %v ended before the records present at the start", keys(open))
			}
			continue
		}
		idle = 0
		if err := each(in); err != nil {
			return err
		}
	}
	return nil
}

func keys(m map[int32]kgo.Offset) []int32 {
	var ps []int32
	for p := range m {
		ps = append(ps, p)
	}
	return ps
}
