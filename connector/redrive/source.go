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

// readAll returns the source records of dead letters by their index in
// dls, each verified by its key, in one read. A letter whose record is gone
// for good has an error wrapping errSourceUnavailable instead; err is a
// transient failure of the whole read.
func (s *sourceReader) readAll(ctx context.Context, dls []*codec.DeadLetter) ([]*kgo.Record, []error, error) {
	positions := make([]kafka.Position, len(dls))
	for i, dl := range dls {
		positions[i] = kafka.Position{Topic: dl.OriginalTopic, Partition: dl.OriginalPartition, Offset: dl.OriginalOffset}
	}
	found, gone, err := kafka.ReadAt(ctx, s.opts, s.timeout, positions)
	if err != nil {
		return nil, nil, err
	}
	recs, errs := make([]*kgo.Record, len(dls)), make([]error, len(dls))
	for i, dl := range dls {
		r := found[positions[i]]
		if r == nil {
			errs[i] = fmt.Errorf("%w: %w", errSourceUnavailable, gone[positions[i]])
			continue
		}
		// A dead letter of an invalid key carries its position (codec.OutcomeKeyAt).
		at := codec.Position{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset}
		if !bytes.Equal(r.Key, dl.OriginalKey) && codec.OutcomeKeyAt(string(r.Key), at) != string(dl.OriginalKey) {
			errs[i] = fmt.Errorf("%w: the record at that offset has another key", errSourceUnavailable)
			continue
		}
		recs[i] = r
	}
	return recs, errs, nil
}
