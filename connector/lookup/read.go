package lookup

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Start is where a read begins in every partition: the first readable
// record (the zero Start), the end, an offset, or a time.
type Start struct {
	// End starts after the records the partition holds when the read
	// begins.
	End bool
	// Offset, when HasOffset, is an offset in every partition: from the
	// start when 0 or more, counted back from the end when negative
	// (kcat's -o). It is clamped to the partition's readable range.
	Offset    int64
	HasOffset bool
	// Time, when not zero, starts at the first record at or after it.
	Time time.Time
}

// Range is the topics of a read, where it starts and whether it stops at
// the end offsets (last stable offsets) the topics had when it began.
type Range struct {
	Topics []string
	From   Start
	// Follow keeps reading past those end offsets until ctx ends.
	Follow bool
}

// ErrNoTopic says a topic to read does not exist.
var ErrNoTopic = errors.New("topic does not exist")

// Read calls each with every committed record of r, in offset order per
// partition, until each returns false, the range ends, or ctx ends (then
// ctx's error is returned, unless the range was read). cl must read
// committed records and keep control records (kgo.KeepControlRecords,
// whose offsets tell that a partition's end was passed); Read assigns the
// partitions itself, so cl has no topics or group of its own.
//
// A topic that does not exist is an error wrapping ErrNoTopic, and a broker
// that does not answer fails when ctx ends: neither waits for ever.
func Read(ctx context.Context, cl *kgo.Client, r Range, each func(*kgo.Record) bool) error {
	from, ends, err := bounds(ctx, kadm.NewClient(cl), r)
	if err != nil {
		return err
	}
	if len(from) == 0 && !r.Follow {
		return nil
	}
	assign := map[string]map[int32]kgo.Offset{}
	open := map[string]map[int32]int64{}
	for tp, o := range from {
		if assign[tp.topic] == nil {
			assign[tp.topic] = map[int32]kgo.Offset{}
		}
		assign[tp.topic][tp.partition] = kgo.NewOffset().At(o)
		if end := ends[tp]; o < end {
			if open[tp.topic] == nil {
				open[tp.topic] = map[int32]int64{}
			}
			open[tp.topic][tp.partition] = end
		}
	}
	cl.AddConsumePartitions(assign)
	defer cl.RemoveConsumePartitions(partitionsOf(assign))
	remaining := 0
	for _, ps := range open {
		remaining += len(ps)
	}
	for r.Follow || remaining > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("read %v: %d partitions not read to their end: %w", r.Topics, remaining, err)
		}
		var errs []error
		fs.EachError(func(topic string, p int32, err error) {
			errs = append(errs, fmt.Errorf("read %s/%d: %w", topic, p, err))
		})
		if err := errors.Join(errs...); err != nil {
			return err
		}
		stop := false
		fs.EachRecord(func(rec *kgo.Record) {
			if stop {
				return
			}
			if !rec.Attrs.IsControl() && !each(rec) {
				stop = true
				return
			}
			if end, ok := open[rec.Topic][rec.Partition]; ok && rec.Offset+1 >= end {
				delete(open[rec.Topic], rec.Partition)
				remaining--
			}
		})
		if stop {
			return nil
		}
	}
	return nil
}

type topicPartition struct {
	topic     string
	partition int32
}

// bounds resolves where each partition of r starts and the end offset
// (last stable offset) it has now.
func bounds(ctx context.Context, adm *kadm.Client, r Range) (from, ends map[topicPartition]int64, err error) {
	starts, err := adm.ListStartOffsets(ctx, r.Topics...)
	if err != nil {
		return nil, nil, listError(ctx, err)
	}
	if err := offsetsError(starts); err != nil {
		return nil, nil, err
	}
	lsos, err := adm.ListCommittedOffsets(ctx, r.Topics...)
	if err != nil {
		return nil, nil, listError(ctx, err)
	}
	if err := offsetsError(lsos); err != nil {
		return nil, nil, err
	}
	var at kadm.ListedOffsets
	if !r.From.Time.IsZero() {
		if at, err = adm.ListOffsetsAfterMilli(ctx, r.From.Time.UnixMilli(), r.Topics...); err != nil {
			return nil, nil, listError(ctx, err)
		}
		if err := offsetsError(at); err != nil {
			return nil, nil, err
		}
	}
	from, ends = map[topicPartition]int64{}, map[topicPartition]int64{}
	lsos.Each(func(e kadm.ListedOffset) {
		tp := topicPartition{e.Topic, e.Partition}
		s, _ := starts.Lookup(e.Topic, e.Partition)
		ends[tp] = e.Offset
		o := s.Offset
		switch {
		case r.From.End:
			o = e.Offset
		case r.From.HasOffset && r.From.Offset >= 0:
			o = r.From.Offset
		case r.From.HasOffset:
			o = e.Offset + r.From.Offset
		case !r.From.Time.IsZero():
			o = e.Offset
			if t, ok := at.Lookup(e.Topic, e.Partition); ok && t.Offset >= 0 {
				o = t.Offset
			}
		}
		from[tp] = min(max(o, s.Offset), e.Offset)
	})
	return from, ends, nil
}

// offsetsError is the first error of listed offsets, a missing topic
// named as such.
func offsetsError(l kadm.ListedOffsets) error {
	var err error
	l.Each(func(o kadm.ListedOffset) {
		switch {
		case err != nil || o.Err == nil:
		case errors.Is(o.Err, kerr.UnknownTopicOrPartition):
			err = fmt.Errorf("%s: %w", o.Topic, ErrNoTopic)
		default:
			err = fmt.Errorf("list offsets of %s/%d: %w", o.Topic, o.Partition, o.Err)
		}
	})
	return err
}

// listError says why offsets could not be listed: no broker answered
// before ctx ended, or the brokers' error.
func listError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("no broker answered: %w", err)
	}
	return fmt.Errorf("list offsets: %w", err)
}

func partitionsOf(m map[string]map[int32]kgo.Offset) map[string][]int32 {
	out := map[string][]int32{}
	for t, ps := range m {
		for p := range ps {
			out[t] = append(out[t], p)
		}
	}
	return out
}
