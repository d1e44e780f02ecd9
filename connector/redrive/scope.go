package redrive

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// redriveScope is what one Run handles: per dead-letter partition,
// the offset of the last committed record present when the run started (-1:
// none). The partition's end offset is not enough: the pipeline writes dead
// letters in transactions, so the end is often a commit marker, and waiting
// for a record at or past it would redrive the dead letters the run's own
// redrives cause, again and again.
type redriveScope map[int32]int64

// idleFetch ends a tail scan: no record arrived for this long.
const idleFetch = 500 * time.Millisecond

// scopeOf finds the last committed record below each partition's end offset
// by reading the partition's tail (a window before the end, widened while it
// holds no record).
func scopeOf(ctx context.Context, adm *kadm.Client, opts []kgo.Opt, topic string) (redriveScope, error) {
	starts, err := adm.ListStartOffsets(ctx, topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("list dead-letter start offsets: %w", err)
	}
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("list dead-letter end offsets: %w", err)
	}
	scope, covered := redriveScope{}, map[int32]bool{}
	for window := int64(32); ; window *= 8 {
		from := map[int32]kgo.Offset{}
		ends.Each(func(e kadm.ListedOffset) {
			s, _ := starts.Lookup(topic, e.Partition)
			if _, found := scope[e.Partition]; found || covered[e.Partition] || e.Offset <= s.Offset {
				return
			}
			at := max(s.Offset, e.Offset-window)
			covered[e.Partition] = at == s.Offset
			from[e.Partition] = kgo.NewOffset().At(at)
		})
		if len(from) == 0 {
			break
		}
		if err := scanTail(ctx, opts, topic, from, ends, scope); err != nil {
			return nil, err
		}
	}
	ends.Each(func(e kadm.ListedOffset) {
		if _, found := scope[e.Partition]; !found {
			scope[e.Partition] = -1
		}
	})
	return scope, nil
}

// scanTail reads the partitions in from up to their end offsets and records
// in scope the last committed record offset below the end.
func scanTail(ctx context.Context, opts []kgo.Opt, topic string, from map[int32]kgo.Offset,
	ends kadm.ListedOffsets, scope redriveScope) error {
	cl, err := kgo.NewClient(append(append([]kgo.Opt{}, opts...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: from}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.FetchMaxWait(idleFetch/5))...)
	if err != nil {
		return fmt.Errorf("dead-letter tail client: %w", err)
	}
	defer cl.Close()
	for {
		pctx, cancel := context.WithTimeout(ctx, idleFetch)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		for _, fe := range fs.Errors() {
			if !errors.Is(fe.Err, context.DeadlineExceeded) {
				return fmt.Errorf("read dead-letter tail %s/%d: %w", fe.Topic, fe.Partition, fe.Err)
			}
		}
		recs := fs.Records()
		if len(recs) == 0 {
			return nil
		}
		for _, r := range recs {
			if e, _ := ends.Lookup(topic, r.Partition); r.Offset < e.Offset && r.Offset > scope.last(r.Partition) {
				scope[r.Partition] = r.Offset
			}
		}
	}
}

func (s redriveScope) last(p int32) int64 {
	if o, ok := s[p]; ok {
		return o
	}
	return -1
}
