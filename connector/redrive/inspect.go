package redrive

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
)

// InspectConfig configures Inspect.
type InspectConfig struct {
	// Kafka are the client options (seeds, TLS, SASL).
	Kafka []kgo.Opt
	// DeadLetter is the dead-letter topic (required).
	DeadLetter string
	// Decode decodes a dead-letter record's value (required).
	Decode func(value []byte) (*codec.DeadLetter, error)
	// Filter selects the letters to count (default: all).
	Filter Filter
	// Samples is how many letters each group shows (default 3).
	Samples int
}

// Inspection is the dead letters present when Inspect started, grouped by
// error code and field, largest group first.
type Inspection struct {
	Letters     int // selected dead letters
	Undecodable int // records that are neither letters nor markers
	Groups      []Group
}

// Group is the dead letters of one error code and field.
type Group struct {
	ErrorCode string   `json:"error_code"`
	Field     string   `json:"field,omitempty"`
	Count     int      `json:"count"`
	Redriven  int      `json:"redriven"` // of Count, redriven already
	Samples   []Sample `json:"samples"`
}

// Sample is one dead letter of a group, masked as on the topic: card
// numbers keep at most bin and last4, security codes are "***", and every
// string is scrubbed again.
type Sample struct {
	Partition int32     `json:"partition"`
	Offset    int64     `json:"offset"`
	Time      time.Time `json:"time"`
	Key       string    `json:"key"`
	Source    string    `json:"source"`
	Error     string    `json:"error"`
	Value     string    `json:"value,omitempty"`
	Redriven  bool      `json:"redriven,omitempty"`
}

// maxSampleValue bounds a sample's value in bytes.
const maxSampleValue = 512

// Inspect reads the dead-letter topic as a redrive run would (the records
// present at the start, by explicit offsets, markers telling which letters
// were redriven) and groups the letters the filter selects. It writes
// nothing.
func Inspect(ctx context.Context, cfg InspectConfig) (*Inspection, error) {
	if cfg.Samples <= 0 {
		cfg.Samples = 3
	}
	if err := (Config{Kafka: cfg.Kafka, DeadLetter: cfg.DeadLetter, Decode: cfg.Decode}).Validate(); err != nil {
		return nil, fmt.Errorf("inspect config: %w", err)
	}
	admin, err := kgo.NewClient(cfg.Kafka...)
	if err != nil {
		return nil, fmt.Errorf("inspect admin client: %w", err)
	}
	defer admin.Close()
	scope, err := scopeOf(ctx, kadm.NewClient(admin), cfg.Kafka, cfg.DeadLetter)
	if err != nil {
		return nil, err
	}
	done, err := redrivenLetters(ctx, cfg.Kafka, cfg.DeadLetter, scope)
	if err != nil {
		return nil, err
	}
	in := &Inspection{}
	groups := map[[2]string]*Group{}
	err = readLetters(ctx, cfg.Kafka, cfg.DeadLetter, scope, func(recs []*kgo.Record) error {
		for _, r := range recs {
			if IsMarker(r) {
				continue
			}
			dl, err := cfg.Decode(r.Value)
			if err != nil {
				in.Undecodable++
				continue
			}
			if !cfg.Filter.Matches(r, dl) {
				continue
			}
			in.Letters++
			s := sampleOf(r, dl, done[letterAt{r.Partition, r.Offset}])
			code, _ := header.Get(r, header.ErrorCode)
			field, _ := header.Get(r, header.ErrorField)
			g := groups[[2]string{code, field}]
			if g == nil {
				g = &Group{ErrorCode: code, Field: field}
				groups[[2]string{code, field}] = g
			}
			g.Count++
			if s.Redriven {
				g.Redriven++
			}
			if len(g.Samples) < cfg.Samples {
				g.Samples = append(g.Samples, s)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		in.Groups = append(in.Groups, *g)
	}
	slices.SortFunc(in.Groups, func(a, b Group) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.ErrorCode, b.ErrorCode), cmp.Compare(a.Field, b.Field))
	})
	return in, nil
}

// sampleOf is a dead letter as a sample, every string scrubbed.
func sampleOf(r *kgo.Record, dl *codec.DeadLetter, redriven bool) Sample {
	v := dl.OriginalValue
	if len(v) > maxSampleValue {
		v = v[:maxSampleValue]
	}
	return Sample{Partition: r.Partition, Offset: r.Offset, Time: r.Timestamp.UTC(), Key: codec.Scrub(string(r.Key)),
		Source: fmt.Sprintf("%s/%d/%d", dl.OriginalTopic, dl.OriginalPartition, dl.OriginalOffset),
		Error:  codec.Scrub(dl.Error), Value: codec.Scrub(string(v)), Redriven: redriven}
}
