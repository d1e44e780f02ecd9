package sessionwriter

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/sessionstate"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
)

// takeOver reads what partition p of the sessions and webhook-events
// topics hold before this writer writes them: the last version of every
// session (from the start: the topic is compacted) and the event ids of the
// last EventWindow, each up to the partition's last stable offset. Records
// of transactions still open are beyond that offset; they belong to a
// previous owner that can no longer commit them.
func (w *Writer) takeOver(ctx context.Context, p int32) (*partition, error) {
	started := time.Now()
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
	since, err := adm.ListOffsetsAfterMilli(ctx, w.cfg.Clock().Add(-w.cfg.EventWindow).UnixMilli(), w.cfg.EventsTopic)
	if err == nil {
		err = since.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("list event-window offsets of partition %d: %w", p, err)
	}
	from := map[string]map[int32]kgo.Offset{}
	want := map[string]int64{}
	for topic, start := range map[string]kadm.ListedOffsets{w.cfg.SessionsTopic: nil, w.cfg.EventsTopic: since} {
		end, ok := ends.Lookup(topic, p)
		if !ok {
			return nil, fmt.Errorf("topic %s has no partition %d", topic, p)
		}
		off := kgo.NewOffset().AtStart()
		first := int64(0)
		if start != nil {
			s, _ := start.Lookup(topic, p)
			off, first = kgo.NewOffset().At(s.Offset), s.Offset
		}
		if end.Offset > first {
			from[topic] = map[int32]kgo.Offset{p: off}
			want[topic] = end.Offset
		}
	}
	part := newPartition()
	if len(want) > 0 {
		cl.AddConsumePartitions(from)
		if err := w.readUntil(ctx, cl, p, want, part); err != nil {
			return nil, err
		}
	}
	part.expire(w.cfg.Clock().Add(-w.cfg.EventWindow))
	w.metrics.takeovers.Observe(time.Since(started).Seconds())
	return part, nil
}

// readUntil reads partition p of each topic of want until the offset before
// its target, filling part.
func (w *Writer) readUntil(ctx context.Context, cl *kgo.Client, p int32, want map[string]int64, part *partition) error {
	for len(want) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return fmt.Errorf("read partition %d: %w", p, ctx.Err())
		}
		var errs []error
		fs.EachError(func(topic string, _ int32, err error) { errs = append(errs, fmt.Errorf("%s: %w", topic, err)) })
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("read partition %d: %w", p, err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if !r.Attrs.IsControl() {
				w.learn(ctx, r, part)
			}
			if end, ok := want[r.Topic]; ok && r.Offset+1 >= end {
				delete(want, r.Topic)
			}
		})
	}
	return nil
}

// learn records what one record of the sessions or webhook-events topic
// says. A sessions tombstone forgets the session.
func (w *Writer) learn(ctx context.Context, r *kgo.Record, part *partition) {
	if r.Topic == w.cfg.EventsTopic {
		if id, ok := header.Get(r, HeaderEventID); ok && id != "" {
			part.addEvent(id, r.Timestamp)
		}
		return
	}
	if r.Value == nil {
		delete(part.versions, string(r.Key))
		delete(part.traces, string(r.Key))
		return
	}
	var st codec.SessionState
	if err := w.cfg.Decoder.DecodeRecord(ctx, r.Value, &st); err != nil {
		w.log.Warn("session writer skips an undecodable sessions record", "partition", r.Partition, "offset", r.Offset, "error", err)
		return
	}
	v := sessionstate.VersionOf(&st)
	if last, ok := part.versions[v.SessionID]; !ok || sessionstate.Newer(v, last) {
		part.versions[v.SessionID] = v
		learnTrace(r, part)
	}
}
