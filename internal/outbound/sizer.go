package outbound

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
)

// Sizer is the one check of every record the connector writes against its
// topic's limit, shared by every writer (pipeline, session writer, webhook
// ingress, reconciler): a record is written in the first of its forms
// (Form) that fits its topic, each leaner than the one before and saying
// what it leaves out (header.Withheld); a record that fits in none is not
// written, and is counted and logged (without its value) instead, so that
// it never fails a produce: it would abort the transaction holding it
// again and again, or fail the request that wrote it, and stall what
// follows. A record fits when its batch (RecordBatchBytes) is within the
// smaller of its topic's live limit and the batch cap the writing client
// was built with (Pinned).
type Sizer struct {
	limits Limits
	caps   Limits // the writing client's batch caps; nil: limits alone
	counts *prometheus.CounterVec
	log    *slog.Logger
}

// Results of paysession_records_oversized_total.
const (
	resultLean    = "lean"    // written in a leaner form
	resultDropped = "dropped" // not written: too large in every form
)

// NewSizer returns a Sizer of limits (nil: DefaultMaxMessageBytes for every
// topic) that counts the records it leans or drops in
// paysession_records_oversized_total on reg (nil: nowhere) and logs those
// it drops to log (nil: nowhere).
func NewSizer(limits Limits, reg prometheus.Registerer, log *slog.Logger) (*Sizer, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Sizer{limits: limits, log: log, counts: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "paysession_records_oversized_total",
		Help: "Records larger than their topic's max.message.bytes, by topic and result: lean (written without a member, named in header paysession-withheld), dropped (too large even so: not written, logged).",
	}, []string{"topic", "result"})}
	if reg != nil {
		if err := reg.Register(s.counts); err != nil {
			return nil, errors.Join(errors.New("sizer metrics"), err)
		}
	}
	return s, nil
}

// Limits returns the limits s checks against (nil for the defaults).
func (s *Sizer) Limits() Limits { return s.limits }

// Pinned returns s for a client built with batch caps caps (Pin): a record
// must fit both its topic's live limit and the cap the client holds for it
// (franz-go refuses a record above it, MESSAGE_TOO_LARGE, and keeps a
// partition's cap until the client is rebuilt), so a raised limit is used
// once the client follows it and a lowered one at once.
func (s *Sizer) Pinned(caps Limits) *Sizer {
	p := *s
	p.caps = caps
	return &p
}

// traceHeadroom is room left in every batch for the trace context a
// writer may set on a record after sizing it (a traceparent header, 68
// bytes with its key and lengths, and a short tracestate).
const traceHeadroom = 128

// Limit returns the largest batch a record of topic may make: the smaller
// of the live and the pinned limit, less traceHeadroom.
func (s *Sizer) Limit(topic string) int {
	n := maxBytes(s.limits, topic)
	if s.caps != nil {
		n = min(n, maxBytes(s.caps, topic))
	}
	return n - traceHeadroom
}

// Fits reports whether rec, alone in a batch, fits its topic (Limit).
func (s *Sizer) Fits(rec *kgo.Record) bool { return RecordBatchBytes(rec) <= s.Limit(rec.Topic) }

// Form is one way to write a record: its value and what it adds to the
// record's headers. The forms of a record go from whole to leanest.
type Form struct {
	// Value is encoded for the record's topic; when nil, Raw is the value.
	Value codec.Record
	Raw   []byte
	// Headers are added to the record's own.
	Headers []kgo.RecordHeader
	// Withheld, when set, names what this form leaves out: the record
	// carries it in header.Withheld (replacing any it had).
	Withheld string
}

// Fit returns base written in the first of forms that fits base.Topic, its
// value encoded by enc (a Raw form needs none). When none fits it returns
// nil: the record is counted as dropped and logged with its topic, key and
// size. An encoding error is returned as is.
func (s *Sizer) Fit(ctx context.Context, enc Encoder, base kgo.Record, forms ...Form) (*kgo.Record, error) {
	var size int
	for i, f := range forms {
		rec, err := f.build(ctx, enc, base)
		if err != nil {
			return nil, err
		}
		if s.Fits(rec) {
			if i > 0 {
				s.count(base.Topic, resultLean)
			}
			return rec, nil
		}
		size = RecordBatchBytes(rec)
	}
	s.Drop(ctx, &base, size)
	return nil, nil
}

// Drop counts and logs a record of base's topic and key that is not
// written because no form of it fits (size: its leanest form's batch).
func (s *Sizer) Drop(ctx context.Context, base *kgo.Record, size int) {
	s.count(base.Topic, resultDropped)
	s.log.WarnContext(ctx, "record too large for its topic in every form; not written",
		slog.String("topic", base.Topic), slog.String("key", string(base.Key)),
		slog.Int("batch_bytes", size), slog.Int("limit", s.Limit(base.Topic)))
}

func (s *Sizer) count(topic, result string) {
	if s.counts != nil {
		s.counts.WithLabelValues(topic, result).Inc()
	}
}

// build is base written in form f.
func (f Form) build(ctx context.Context, enc Encoder, base kgo.Record) (*kgo.Record, error) {
	rec := base
	rec.Value = f.Raw
	if f.Value != nil {
		v, err := enc.Encode(ctx, base.Topic, f.Value)
		if err != nil {
			return nil, fmt.Errorf("encode %s record: %w", base.Topic, err)
		}
		rec.Value = v
	}
	hs := make([]kgo.RecordHeader, 0, len(base.Headers)+len(f.Headers)+1)
	for _, h := range base.Headers {
		if f.Withheld == "" || h.Key != header.Withheld {
			hs = append(hs, h)
		}
	}
	hs = append(hs, f.Headers...)
	if f.Withheld != "" {
		hs = append(hs, header.New(header.Withheld, f.Withheld))
	}
	rec.Headers = hs
	return &rec, nil
}

// Refused tells s that a produce failed with err. On MESSAGE_TOO_LARGE a
// topic's limit was likely lowered under a record that fitted the limits
// as last read: limits that can (topics.Live's Suspect) are read again at
// once.
func (s *Sizer) Refused(err error) {
	if !errors.Is(err, kerr.MessageTooLarge) {
		return
	}
	if l, ok := s.limits.(interface{ Suspect() }); ok {
		l.Suspect()
	}
}
