package pipeline

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
)

// Dead letters. An invalid command goes to the dead-letter topic with its
// origin (topic, partition, offset, key, headers, record time) and the error,
// but never with card data: its value is a protected copy (card numbers keep
// bin and last4, security codes become "***", an unreadable value is left
// out) and header.DeadLetterValue says which. Redrive reads the original bytes
// back from the source record.

// valueProtector masks card data in a command value; *codec.Decoder
// implements it (with the registry, so Confluent Avro values can be masked).
type valueProtector interface {
	ProtectValue(ctx context.Context, value []byte) ([]byte, codec.ValueProtection)
}

// protectedLetter is what a dead letter may carry of its command record.
type protectedLetter struct {
	value      []byte
	headers    []kgo.RecordHeader
	protection codec.ValueProtection
}

// protect returns the protected copy of a dead-lettered record's value and
// headers. Header values are masked as text; a masked header makes an
// otherwise original value "masked", since the letter then differs from the
// source record.
func (p *Pipeline) protect(ctx context.Context, r *kgo.Record) protectedLetter {
	var l protectedLetter
	if vp, ok := p.cfg.Decoder.(valueProtector); ok {
		l.value, l.protection = vp.ProtectValue(ctx, r.Value)
	} else {
		l.value, l.protection = codec.ProtectValue(r.Value)
	}
	for _, h := range header.Foreign(r) {
		if m, masked := codec.ProtectHeader(h.Key, h.Value); masked {
			h.Value = m
			if l.protection == codec.ValueOriginal {
				l.protection = codec.ValueMasked
			}
		}
		l.headers = append(l.headers, h)
	}
	return l
}

// deadLetterOf builds the dead-letter record of an invalid command from its
// protected value and headers.
func deadLetterOf(out *outcome, l protectedLetter, now time.Time) *codec.DeadLetter {
	in := out.in
	d := &codec.DeadLetter{
		OriginalTopic:     in.src.Topic,
		OriginalPartition: in.src.Partition,
		OriginalOffset:    in.src.Offset,
		OriginalKey:       []byte(in.outcomeKey()),
		OriginalValue:     l.value,
		OriginalTimestamp: optionalTime(in.recordTime),
		Error:             codec.Scrub(truncate(out.verdict.Description, maxDescription)),
		ErrorField:        optional(out.verdict.Field),
		FailedAt:          now.UTC(),
	}
	for _, h := range l.headers {
		d.OriginalHeaders = append(d.OriginalHeaders, codec.Header{Key: h.Key, Value: h.Value})
	}
	return d
}

// deadLetterHeaders are the error and protection headers on a dead-letter
// record, Kafka Connect's dead-letter headers beside them, and the
// command's redrive count carried on (redrive stops a command that loops).
func deadLetterHeaders(out *outcome, protection codec.ValueProtection) []kgo.RecordHeader {
	message := codec.Scrub(truncate(out.verdict.Description, maxDescription))
	src := out.in.src
	hs := []kgo.RecordHeader{
		header.New(header.ErrorCode, out.verdict.Code),
		header.New(header.Error, message),
		header.New(header.Kind, out.in.kind),
		header.NewInt(header.RecordTime, out.in.recordTime.UnixMilli()),
		header.New(header.DeadLetterValue, string(protection)),
		header.New(header.ConnectTopic, src.Topic),
		header.NewInt(header.ConnectPartition, int64(src.Partition)),
		header.NewInt(header.ConnectOffset, src.Offset),
		header.New(header.ConnectMessage, message),
	}
	if out.verdict.Field != "" {
		hs = append(hs, header.New(header.ErrorField, out.verdict.Field))
	}
	if n, ok := header.Int(out.in.rec, header.RedriveCount); ok {
		hs = append(hs, header.NewInt(header.RedriveCount, n))
	}
	return hs
}
