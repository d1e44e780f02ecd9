package redrive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/kafka"
)

// errSourceUnavailable says a dead letter's source record cannot be read
// back: deleted by retention or compaction, or another record (another key)
// sits at its offset. Other lookup errors are transient.
var errSourceUnavailable = errors.New("source record unavailable")

// sourceReader reads dead letters' source records back from their source
// topics by position (kafka.ReadAt, as the pipeline reads parked commands).
type sourceReader struct {
	opts    []kgo.Opt
	timeout time.Duration
}

func newSourceReader(opts []kgo.Opt, timeout time.Duration) *sourceReader {
	return &sourceReader{opts: opts, timeout: timeout}
}

// read returns the source record of a dead letter, verified by its key. The
// error wraps errSourceUnavailable when the record is gone for good.
func (s *sourceReader) read(ctx context.Context, dl *codec.DeadLetter) (*kgo.Record, error) {
	pos := kafka.Position{Topic: dl.OriginalTopic, Partition: dl.OriginalPartition, Offset: dl.OriginalOffset}
	found, gone, err := kafka.ReadAt(ctx, s.opts, s.timeout, []kafka.Position{pos})
	if err != nil {
		return nil, err
	}
	r := found[pos]
	if r == nil {
		return nil, fmt.Errorf("%w: %w", errSourceUnavailable, gone[pos])
	}
	// A dead letter of an invalid key carries its position (codec.OutcomeKeyAt).
	at := codec.Position{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset}
	if !bytes.Equal(r.Key, dl.OriginalKey) && codec.OutcomeKeyAt(string(r.Key), at) != string(dl.OriginalKey) {
		return nil, fmt.Errorf("%w: the record at that offset has another key", errSourceUnavailable)
	}
	return r, nil
}
