package pipeline

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/topics"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
	"github.com/paysession/paysession/internal/outbound"
	"github.com/paysession/paysession/internal/payapi"
)

// TestSessionStateTooLargeForItsTopic: a session update that would not fit
// the session-updates topic is published without its operations' metadata,
// saying so in a header; one that would not fit even then is left out, and
// the command's result is still published, so the transaction never holds
// a record its topic refuses (issue 38).
func TestSessionStateTooLargeForItsTopic(t *testing.T) {
	meta := json.RawMessage(`{"note":"` + strings.Repeat("x", 8<<10) + `"}`)
	for _, tc := range []struct {
		name     string
		limit    int
		withheld bool // the update is published without metadata
		none     bool // no update is published
	}{
		{"fits", 1 << 20, false, false},
		{"fits without metadata", 4 << 10, true, false},
		{"does not fit at all", 64, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPipeline(t, &fakeAPI{}, func(c *Config) {
				c.Sizer = sizerOf(t, topics.Report{Topics: []topics.TopicReport{{Topic: DefaultTopics().SessionUpdates, Exists: true,
					ConfigsKnown: true, MaxMessageBytes: tc.limit}}})
			})
			rec := &kgo.Record{Topic: p.cfg.Topics.Commands["capture"], Key: []byte("key-0001"), Timestamp: testNow,
				Value: []byte(`{"session_id":"ps_1"}`)}
			in := newInbound(rec, "capture", false)
			out := &outcome{in: in, verdict: verdict{Status: codec.StatusAccepted}, sessionID: "ps_1",
				answer: answer{Session: &payapi.Session{ID: "ps_1", Status: "accepted", UpdatedAt: testNow,
					Payments: []payapi.Operation{{ID: "pm_1", Status: "succeeded", Metadata: meta}}}}}
			recs, err := p.outcomeRecords(context.Background(), out, testNow)
			if err != nil {
				t.Fatal(err)
			}
			var results, updates []*kgo.Record
			for _, r := range recs {
				switch r.Topic {
				case p.cfg.Topics.Results:
					results = append(results, r)
				case p.cfg.Topics.SessionUpdates:
					updates = append(updates, r)
				}
			}
			if len(results) != 1 {
				t.Fatalf("%d results, want 1", len(results))
			}
			if tc.none {
				if len(updates) != 0 {
					t.Fatalf("%d updates of %d bytes, want none", len(updates), len(updates[0].Value))
				}
				return
			}
			if len(updates) != 1 || !p.pinned.sizer.Fits(updates[0]) {
				t.Fatalf("%d updates, want one that fits", len(updates))
			}
			v, marked := header.Get(updates[0], header.Withheld)
			hasMeta := strings.Contains(string(updates[0].Value), "xxxx")
			if marked != tc.withheld || (marked && v != "metadata") || hasMeta == tc.withheld {
				t.Errorf("withheld header %q (%v), metadata kept %v; want withheld %v", v, marked, hasMeta, tc.withheld)
			}
		})
	}
}

// sizerOf returns a Sizer of limits that counts in a registry of its own.
func sizerOf(t *testing.T, limits outbound.Limits) *outbound.Sizer {
	t.Helper()
	s, err := outbound.NewSizer(limits, prometheus.NewRegistry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
