package lookup

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/kit"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
)

// Line is one record as the tools print it: its position, key and headers
// with card data scrubbed, and its value decoded (outcomes are masked on
// their topics). A value that does not decode carries its error instead,
// never raw bytes.
type Line struct {
	// Record says what the record is to a lookup: "result", "session",
	// "dead_letter" or "retry" (empty in tail).
	Record    string            `json:"record,omitempty"`
	Topic     string            `json:"topic"`
	Partition int32             `json:"partition"`
	Offset    int64             `json:"offset"`
	Timestamp time.Time         `json:"timestamp"`
	Key       string            `json:"key"`
	Headers   map[string]string `json:"headers,omitempty"`
	Schema    string            `json:"schema,omitempty"`
	Value     any               `json:"value,omitempty"`
	// OriginalValue is a dead letter's original value as text, with card
	// data scrubbed (it is masked on the topic unless it held none).
	OriginalValue *string `json:"original_value,omitempty"`
	Error         string  `json:"error,omitempty"`
	decoded       kit.Record
}

// Header returns the line of r without its value: for records whose value
// is not printed (a retry record has none).
func Header(r *kgo.Record) Line {
	l := Line{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Timestamp: r.Timestamp.UTC(), Key: codec.Scrub(string(r.Key))}
	for _, h := range r.Headers {
		if l.Headers == nil {
			l.Headers = map[string]string{}
		}
		l.Headers[h.Key] = codec.Scrub(string(h.Value))
	}
	return l
}

// Decode returns the line of r with its value decoded as schema when known,
// else by what the value names.
func Decode(ctx context.Context, dec *kit.Decoder, r *kgo.Record, schema kit.SchemaName, known bool) Line {
	l := Header(r)
	if _, marker := header.Get(r, header.Redriven); marker {
		return l // a redrive marker on the dead-letter topic has no value
	}
	var v kit.Record
	var err error
	if known {
		v, err = dec.DecodeAs(ctx, schema, r.Value)
	} else {
		v, err = dec.DecodeAny(ctx, r.Value)
	}
	if err != nil {
		l.Error = err.Error()
		return l
	}
	l.Schema, l.Value, l.decoded = string(v.SchemaName()), v, v
	if d, ok := v.(*kit.DeadLetter); ok {
		s := codec.Scrub(string(d.OriginalValue))
		l.OriginalValue = &s
	}
	return l
}
