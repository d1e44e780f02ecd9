package sessionwriter

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// takeOver reads what partition p of the sessions and webhook-events
// topics hold before this writer writes them: the last version of every
// session written within the horizon and the event ids of the last
// EventWindow, each up to the partition's last stable offset. Kafka's time
// index gives where each begins (the first record at or after the time),
// so a takeover reads the recent records, never the partition's whole
// history. Records of transactions still open are beyond the last stable
// offset; they belong to a previous owner that can no longer commit them.
func (w *Writer) takeOver(ctx context.Context, p int32) (*partition, error) {
	started := time.Now()
	at := w.cutoffs()
	cl, err := kgo.NewClient(append(append([]kgo.Opt{}, w.cfg.Kafka...),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.KeepControlRecords(), // their offsets tell when a partition is read to its end
		kgo.FetchMaxWait(200*time.Millisecond))...)
	if err != nil {
		return nil, fmt.Errorf("session writer reader: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ends, err := adm.ListCommittedOffsets(ctx, w.cfg.SessionsTopic, w.cfg.EventsTopic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("list end offsets of partition %d: %w", p, err)
	}
	starts := map[string]int64{w.cfg.SessionsTopic: at.forget, w.cfg.EventsTopic: at.events}
	from := map[string]map[int32]kgo.Offset{}
	want := map[string]int64{}
	for topic, since := range starts {
		end, ok := ends.Lookup(topic, p)
		if !ok {
			return nil, fmt.Errorf("topic %s has no partition %d", topic, p)
		}
		listed, err := adm.ListOffsetsAfterMilli(ctx, since, topic)
		if err == nil {
			err = listed.Error()
		}
		if err != nil {
			return nil, fmt.Errorf("list the offsets of %s after %s: %w", topic, time.UnixMilli(since).UTC().Format(time.RFC3339), err)
		}
		start, ok := listed.Lookup(topic, p)
		if !ok {
			return nil, fmt.Errorf("topic %s has no partition %d", topic, p)
		}
		if end.Offset > start.Offset {
			from[topic] = map[int32]kgo.Offset{p: kgo.NewOffset().At(start.Offset)}
			want[topic] = end.Offset
		}
	}
	part := newPartition()
	read := 0
	if len(want) > 0 {
		cl.AddConsumePartitions(from)
		if read, err = w.readUntil(ctx, cl, p, want, part, at); err != nil {
			return nil, err
		}
	}
	part.events.sweep(at.events)
	w.metrics.takeovers.Observe(time.Since(started).Seconds())
	w.metrics.takeoverRecs.Observe(float64(read))
	return part, nil
}

// readUntil reads partition p of each topic of want until the offset before
// its target, filling part, and returns the number of sessions records
// read.
func (w *Writer) readUntil(ctx context.Context, cl *kgo.Client, p int32, want map[string]int64, part *partition, at cutoffs) (int, error) {
	read := 0
	for len(want) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return read, fmt.Errorf("read partition %d: %w", p, ctx.Err())
		}
		var errs []error
		fs.EachError(func(topic string, _ int32, err error) { errs = append(errs, fmt.Errorf("%s: %w", topic, err)) })
		if err := errors.Join(errs...); err != nil {
			return read, fmt.Errorf("read partition %d: %w", p, err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if !r.Attrs.IsControl() {
				if r.Topic == w.cfg.SessionsTopic {
					read++
				}
				w.learn(ctx, r, part, at)
			}
			if end, ok := want[r.Topic]; ok && r.Offset+1 >= end {
				delete(want, r.Topic)
			}
		})
	}
	return read, nil
}

// learn records what one record of the sessions or webhook-events topic
// says. A sessions tombstone forgets the session, and so does a record
// written before the horizon (timestamps need not grow along a partition:
// the time index gives the first record at or after a time, later ones
// may be older).
func (w *Writer) learn(ctx context.Context, r *kgo.Record, part *partition, at cutoffs) {
	if r.Topic == w.cfg.EventsTopic {
		if id := eventIDOf(r); id != "" {
			part.events.add(id, r.Timestamp.UnixMilli())
		}
		return
	}
	key := string(r.Key)
	if r.Value == nil || r.Timestamp.UnixMilli() < at.forget {
		part.versions.del(key)
		part.traces.del(key)
		return
	}
	var st codec.SessionState
	if err := w.cfg.Decoder.DecodeRecord(ctx, r.Value, &st); err != nil {
		w.log.Warn("session writer skips an undecodable sessions record", "partition", r.Partition, "offset", r.Offset, "error", err)
		return
	}
	v := codec.VersionOf(&st)
	if last, ok := part.versions.get(v.SessionID); !ok || v.Stamp().Newer(last.stamp) {
		part.versions.set(v.SessionID, stampOf(v, r.Timestamp, w.projects.refOf(st.Project).carried(last.project)))
		learnTrace(r, part)
	}
}
