package outbound

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
)

// jsonEncoder encodes records as JSON, whatever the topic.
type jsonEncoder struct{}

func (jsonEncoder) Encode(_ context.Context, _ string, rec codec.Record) ([]byte, error) {
	return json.Marshal(rec)
}

// fixed is a limit per topic.
type fixed map[string]int

func (f fixed) MaxMessageBytes(topic string) int { return f[topic] }

// bigState is a session state whose one operation carries n bytes of
// metadata.
func bigState(n int) *codec.SessionState {
	m := codec.Metadata(`{"note":"` + strings.Repeat("x", n) + `"}`)
	return &codec.SessionState{Session: codec.Session{ID: "ps_1", Status: "accepted",
		Operations: []codec.Operation{{ID: "pm_1", Status: "succeeded", Metadata: &m}, {ID: "pm_2", Status: "failed"}}}}
}

func newTestSizer(t *testing.T, limits Limits) (*Sizer, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	s, err := NewSizer(limits, reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, reg
}

// TestSizerFitsEachRecordInItsFirstFittingForm: a state is written whole
// while it fits, without metadata (saying so) when only that fits, and not
// at all (counted) when nothing fits; the state itself is not changed.
func TestSizerFitsEachRecordInItsFirstFittingForm(t *testing.T) {
	st := bigState(8 << 10)
	for _, tc := range []struct {
		name     string
		limit    int
		withheld bool
		dropped  bool
	}{
		{"fits whole", 1 << 20, false, false},
		{"fits without metadata", 2 << 10, true, false},
		{"fits in no form", 300, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newTestSizer(t, fixed{"updates": tc.limit})
			base := kgo.Record{Topic: "updates", Key: []byte("ps_1"), Headers: []kgo.RecordHeader{header.New("trace", "t")}}
			r, err := s.Fit(context.Background(), jsonEncoder{}, base, StateForms(st)...)
			if err != nil {
				t.Fatal(err)
			}
			if got := testutil.ToFloat64(s.counts.WithLabelValues("updates", resultDropped)); (got == 1) != tc.dropped {
				t.Errorf("dropped count %v, want dropped %v", got, tc.dropped)
			}
			if tc.dropped {
				if r != nil {
					t.Fatalf("a record of %d batch bytes for a limit of %d", RecordBatchBytes(r), tc.limit)
				}
				return
			}
			if r == nil || !s.Fits(r) {
				t.Fatalf("no record that fits")
			}
			v, marked := header.Get(r, header.Withheld)
			kept := strings.Contains(string(r.Value), "xxxx")
			if marked != tc.withheld || (marked && v != WithheldMetadata) || kept == tc.withheld {
				t.Errorf("withheld %q (%v), metadata kept %v; want withheld %v", v, marked, kept, tc.withheld)
			}
			if tr, _ := header.Get(r, "trace"); tr != "t" {
				t.Errorf("the base's headers are lost")
			}
			if got := testutil.ToFloat64(s.counts.WithLabelValues("updates", resultLean)); (got == 1) != tc.withheld {
				t.Errorf("lean count %v, want lean %v", got, tc.withheld)
			}
		})
	}
	if st.Session.Operations[0].Metadata == nil {
		t.Errorf("Fit took the metadata off the caller's state")
	}
}

// TestSizerPinnedUsesTheSmallerLimit: a record must fit both the live limit
// and the cap its client was built with, whichever is smaller.
func TestSizerPinnedUsesTheSmallerLimit(t *testing.T) {
	s, _ := newTestSizer(t, fixed{"t": 4096})
	rec := &kgo.Record{Topic: "t", Value: make([]byte, 3000)}
	if !s.Fits(rec) {
		t.Fatal("3000 bytes do not fit 4096")
	}
	if s.Pinned(fixed{"t": 2048}).Fits(rec) {
		t.Error("fits a client capped at 2048 (a raised limit not followed yet)")
	}
	if !s.Pinned(fixed{"t": 1 << 20}).Fits(rec) {
		t.Error("does not fit a live 4096 under a cap of 1 MiB")
	}
	if s.Pinned(fixed{"t": 1 << 20}).Fits(&kgo.Record{Topic: "t", Value: make([]byte, 5000)}) {
		t.Error("5000 bytes fit a lowered live limit of 4096 under an old cap of 1 MiB")
	}
}

// TestSizerReplacesAWithheldHeader: a record already written lean once
// (its header carried on) and leaned again says so once.
func TestSizerReplacesAWithheldHeader(t *testing.T) {
	s, _ := newTestSizer(t, fixed{"t": 2 << 10})
	base := kgo.Record{Topic: "t", Headers: []kgo.RecordHeader{header.New(header.Withheld, WithheldMetadata)}}
	r, err := s.Fit(context.Background(), jsonEncoder{}, base, StateForms(bigState(8<<10))...)
	if err != nil || r == nil {
		t.Fatalf("Fit = %v, %v", r, err)
	}
	n := 0
	for _, h := range r.Headers {
		if h.Key == header.Withheld {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d %s headers, want 1", n, header.Withheld)
	}
}

// TestChanged: only the limits of the named topics count.
func TestChanged(t *testing.T) {
	a, b := fixed{"x": 1000, "y": 2000}, fixed{"x": 1000, "y": 3000}
	if Changed(a, b, "x") || !Changed(a, b, "x", "y") || Changed(nil, fixed{}, "x") {
		t.Error("Changed compares the wrong topics")
	}
}
