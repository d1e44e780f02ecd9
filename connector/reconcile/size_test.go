package reconcile

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	kheader "github.com/paysession/paysession/internal/header"
	"github.com/paysession/paysession/internal/outbound"
)

// captured is a Producer that keeps what it is given and acknowledges it.
type captured struct {
	mu   sync.Mutex
	recs []*kgo.Record
}

func (c *captured) TryProduce(_ context.Context, r *kgo.Record, promise func(*kgo.Record, error)) {
	c.mu.Lock()
	c.recs = append(c.recs, r)
	c.mu.Unlock()
	promise(r, nil)
}

func (c *captured) ProduceSync(_ context.Context, rs ...*kgo.Record) kgo.ProduceResults {
	var res kgo.ProduceResults
	for _, r := range rs {
		c.TryProduce(context.Background(), r, func(*kgo.Record, error) {})
		res = append(res, kgo.ProduceResult{Record: r})
	}
	return res
}

// limit is one limit for every topic.
type limit int

func (l limit) MaxMessageBytes(string) int { return int(l) }

// TestPolledStateTooLargeForTheUpdatesTopic: a polled state that would not
// fit the updates topic is published without its operations' metadata,
// saying so; one that fits in no form is not published (and the pending
// set does not take it as published), instead of a record every produce
// refuses.
func TestPolledStateTooLargeForTheUpdatesTopic(t *testing.T) {
	meta := codec.Metadata(`{"note":"` + strings.Repeat("x", 8<<10) + `"}`)
	for _, tc := range []struct {
		name      string
		limit     int
		withheld  bool
		published bool
	}{
		{"fits", 1 << 20, false, true},
		{"fits without metadata", 2 << 10, true, true},
		{"fits in no form", 300, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prod := &captured{}
			sizer, err := outbound.NewSizer(limit(tc.limit), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := New(Config{Brokers: []string{"k:9092"}, Producer: prod, Encoder: jsonEncoder{}, API: &fakeAPI{},
				Sizer: sizer, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatal(err)
			}
			at := t0
			st := &codec.SessionState{Session: codec.Session{ID: "ps_1", Status: "in_progress", UpdatedAt: &at,
				Operations: []codec.Operation{{Kind: codec.OperationPayment, ID: "pm_1", Status: "in_progress", Metadata: &meta}}},
				Source: codec.SourcePoll, ObservedAt: t0, APIVersion: 1}
			published, err := r.publish(context.Background(), task{id: "ps_1"}, st, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			if published != tc.published || len(prod.recs) != map[bool]int{true: 1, false: 0}[tc.published] {
				t.Fatalf("published %v with %d records, want %v", published, len(prod.recs), tc.published)
			}
			if !tc.published {
				return
			}
			rec := prod.recs[0]
			v, marked := kheader.Get(rec, kheader.Withheld)
			kept := strings.Contains(string(rec.Value), "xxxx")
			if marked != tc.withheld || (marked && v != outbound.WithheldMetadata) || kept == tc.withheld {
				t.Errorf("withheld %q (%v), metadata kept %v; want withheld %v", v, marked, kept, tc.withheld)
			}
			if !sizer.Fits(rec) {
				t.Errorf("published %d batch bytes over a limit of %d", outbound.RecordBatchBytes(rec), tc.limit)
			}
		})
	}
}
