package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Position names one record of a topic.
type Position struct {
	Topic     string
	Partition int32
	Offset    int64
}

func (p Position) String() string { return fmt.Sprintf("%s/%d/%d", p.Topic, p.Partition, p.Offset) }

// ErrGone says a record cannot be read back any more: deleted by retention
// or compaction, its transaction aborted, or its topic or partition gone.
var ErrGone = errors.New("record gone")

// ReadAt reads the committed records at positions, with one client whose
// options are opts: the dead letters' redrive and the retry topic's
// parked commands read their commands back from the command topics this
// way, so neither copy holds the command itself. A position whose record
// is gone maps to an error wrapping ErrGone; any other failure (no broker
// answers within timeout) is returned as the error, and nothing is known
// of the positions.
//
// Each partition is read from its first wanted offset to its last, so the
// positions of one partition should lie close together (those of one
// batch do).
func ReadAt(ctx context.Context, opts []kgo.Opt, timeout time.Duration, positions []Position) (map[Position]*kgo.Record, map[Position]error, error) {
	found := map[Position]*kgo.Record{}
	gone := map[Position]error{}
	if len(positions) == 0 {
		return found, gone, nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cl, err := kgo.NewClient(append(append([]kgo.Opt{}, opts...), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.KeepControlRecords(), // their offsets, too, tell that a wanted offset was passed
		kgo.ConsumeResetOffset(kgo.NoResetOffset()), kgo.FetchMaxWait(100*time.Millisecond))...)
	if err != nil {
		return nil, nil, fmt.Errorf("record reader: %w", err)
	}
	defer cl.Close()
	want, err := readable(ctx, kadm.NewClient(cl), positions, gone)
	if err != nil {
		return nil, nil, err
	}
	if len(want) == 0 {
		return found, gone, nil
	}
	from := map[string]map[int32]kgo.Offset{}
	for tp, w := range want {
		if from[tp.topic] == nil {
			from[tp.topic] = map[int32]kgo.Offset{}
		}
		from[tp.topic][tp.partition] = kgo.NewOffset().At(w.first)
	}
	cl.AddConsumePartitions(from)
	for len(want) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("read %d records back: none within %s: %w", len(positions), timeout, ctx.Err())
		}
		var errs []error
		fs.EachError(func(topic string, partition int32, err error) {
			tp := topicPartition{topic, partition}
			if w, ok := want[tp]; ok && errors.Is(err, kerr.OffsetOutOfRange) {
				w.goneAll(gone, fmt.Errorf("%w: offset out of range (retention)", ErrGone))
				delete(want, tp)
				return
			}
			errs = append(errs, fmt.Errorf("read %s/%d: %w", topic, partition, err))
		})
		if err := errors.Join(errs...); err != nil {
			return nil, nil, err
		}
		fs.EachRecord(func(r *kgo.Record) {
			tp := topicPartition{r.Topic, r.Partition}
			w, ok := want[tp]
			if !ok {
				return
			}
			if w.offsets[r.Offset] && !r.Attrs.IsControl() {
				found[Position{r.Topic, r.Partition, r.Offset}] = r
				delete(w.offsets, r.Offset)
			}
			if r.Offset >= w.last || r.Offset+1 >= w.end {
				// Past the last wanted offset, or at the end: the rest
				// are not committed records (compacted, aborted).
				w.goneAll(gone, fmt.Errorf("%w: no committed record at that offset (compacted or aborted)", ErrGone))
				delete(want, tp)
			}
		})
	}
	return found, gone, nil
}

type topicPartition struct {
	topic     string
	partition int32
}

// wanted are the offsets still to read of one partition.
type wanted struct {
	topic       string
	partition   int32
	offsets     map[int64]bool
	first, last int64
	end         int64 // the partition's last stable offset
}

func (w *wanted) goneAll(gone map[Position]error, err error) {
	for o := range w.offsets {
		gone[Position{w.topic, w.partition, o}] = err
	}
}

// readable groups positions by partition, dropping into gone those outside
// the partition's readable offsets [log start, last stable offset).
func readable(ctx context.Context, adm *kadm.Client, positions []Position, gone map[Position]error) (map[topicPartition]*wanted, error) {
	var topics []string
	seen := map[string]bool{}
	for _, p := range positions {
		if !seen[p.Topic] {
			seen[p.Topic] = true
			topics = append(topics, p.Topic)
		}
	}
	starts, err := adm.ListStartOffsets(ctx, topics...)
	if err != nil {
		return nil, fmt.Errorf("list start offsets: %w", err)
	}
	ends, err := adm.ListCommittedOffsets(ctx, topics...)
	if err != nil {
		return nil, fmt.Errorf("list end offsets: %w", err)
	}
	want := map[topicPartition]*wanted{}
	for _, p := range positions {
		start, okS := starts.Lookup(p.Topic, p.Partition)
		end, okE := ends.Lookup(p.Topic, p.Partition)
		for _, o := range []kadm.ListedOffset{start, end} {
			switch {
			case errors.Is(o.Err, kerr.UnknownTopicOrPartition):
				okS = false // the topic or partition is gone
			case o.Err != nil:
				return nil, fmt.Errorf("list offsets of %s/%d: %w", p.Topic, p.Partition, o.Err)
			}
		}
		if !okS || !okE || p.Offset < start.Offset || p.Offset >= end.Offset {
			gone[p] = fmt.Errorf("%w: offset outside the partition's readable range (retention)", ErrGone)
			continue
		}
		tp := topicPartition{p.Topic, p.Partition}
		w := want[tp]
		if w == nil {
			w = &wanted{topic: p.Topic, partition: p.Partition, offsets: map[int64]bool{}, first: p.Offset, last: p.Offset, end: end.Offset}
			want[tp] = w
		}
		w.offsets[p.Offset] = true
		w.first, w.last = min(w.first, p.Offset), max(w.last, p.Offset)
	}
	return want, nil
}
