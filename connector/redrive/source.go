package redrive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// errSourceUnavailable says a dead letter's source record cannot be read
// back: deleted by retention or compaction, or another record (another key)
// sits at its offset. Other lookup errors are transient.
var errSourceUnavailable = errors.New("source record unavailable")

// sourceReader reads dead letters' source records back from their source
// topics: a direct, read_committed consume of exactly one offset.
type sourceReader struct {
	opts    []kgo.Opt
	adm     *kadm.Client
	timeout time.Duration
	bounds  map[string]topicBounds // per batch: bounds of each source topic
}

// topicBounds are a topic's readable offsets: [start, last stable offset).
type topicBounds struct {
	starts, ends kadm.ListedOffsets
}

func newSourceReader(opts []kgo.Opt, adm *kadm.Client, timeout time.Duration) *sourceReader {
	return &sourceReader{opts: opts, adm: adm, timeout: timeout, bounds: map[string]topicBounds{}}
}

// read returns the source record of a dead letter, verified by its key. The
// error wraps errSourceUnavailable when the record is gone for good.
func (s *sourceReader) read(ctx context.Context, dl *codec.DeadLetter) (*kgo.Record, error) {
	ok, err := s.inBounds(ctx, dl.OriginalTopic, dl.OriginalPartition, dl.OriginalOffset)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: offset outside the partition's readable range (retention)", errSourceUnavailable)
	}
	r, err := s.consumeAt(ctx, dl.OriginalTopic, dl.OriginalPartition, dl.OriginalOffset)
	if err != nil {
		return nil, err
	}
	// A dead letter of an invalid key carries its digest (codec.OutcomeKey).
	if !bytes.Equal(r.Key, dl.OriginalKey) && codec.OutcomeKey(string(r.Key)) != string(dl.OriginalKey) {
		return nil, fmt.Errorf("%w: the record at that offset has another key", errSourceUnavailable)
	}
	return r, nil
}

// inBounds reports whether offset lies within the partition's readable
// offsets (listed once per topic and batch).
func (s *sourceReader) inBounds(ctx context.Context, topic string, partition int32, offset int64) (bool, error) {
	b, ok := s.bounds[topic]
	if !ok {
		starts, err := s.adm.ListStartOffsets(ctx, topic)
		if err != nil {
			return false, fmt.Errorf("list start offsets of %s: %w", topic, err)
		}
		ends, err := s.adm.ListCommittedOffsets(ctx, topic)
		if err != nil {
			return false, fmt.Errorf("list end offsets of %s: %w", topic, err)
		}
		b = topicBounds{starts: starts, ends: ends}
		s.bounds[topic] = b
	}
	start, okS := b.starts.Lookup(topic, partition)
	end, okE := b.ends.Lookup(topic, partition)
	for _, o := range []kadm.ListedOffset{start, end} {
		switch {
		case errors.Is(o.Err, kerr.UnknownTopicOrPartition):
			return false, nil // the topic or partition is gone
		case o.Err != nil:
			return false, fmt.Errorf("list offsets of %s/%d: %w", topic, partition, o.Err)
		}
	}
	return okS && okE && offset >= start.Offset && offset < end.Offset, nil
}

// consumeAt reads the committed record at exactly offset.
func (s *sourceReader) consumeAt(ctx context.Context, topic string, partition int32, offset int64) (*kgo.Record, error) {
	opts := append(append([]kgo.Opt{}, s.opts...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().At(offset)}}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NoResetOffset()))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("source reader client: %w", err)
	}
	defer cl.Close()
	tctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	for {
		fs := cl.PollFetches(tctx)
		if tctx.Err() != nil {
			return nil, fmt.Errorf("read %s/%d/%d: no record within %s: %w", topic, partition, offset, s.timeout, tctx.Err())
		}
		for _, fe := range fs.Errors() {
			if errors.Is(fe.Err, kerr.OffsetOutOfRange) {
				return nil, fmt.Errorf("%w: offset out of range (retention)", errSourceUnavailable)
			}
			return nil, fmt.Errorf("read %s/%d/%d: %w", topic, partition, offset, fe.Err)
		}
		for _, r := range fs.Records() {
			switch {
			case r.Topic != topic || r.Partition != partition || r.Offset < offset:
				continue
			case r.Offset > offset:
				return nil, fmt.Errorf("%w: no committed record at that offset (compacted or aborted)", errSourceUnavailable)
			}
			return r, nil
		}
	}
}
