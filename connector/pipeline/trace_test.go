package pipeline

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/signing"
)

// TestTraceContextFlowsToCallAndOutcomes: a command's traceparent and
// tracestate headers reach the API request and its outcome records.
func TestTraceContextFlowsToCallAndOutcomes(t *testing.T) {
	const tp, ts = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "vendor=abc"
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		got <- r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"ok","session":{"id":"ps_1","status":"in_progress",`+
			`"created_at":"2026-11-23T10:00:00.000000Z","updated_at":"2026-11-23T10:00:01.000000Z"}}`)
	}))
	defer srv.Close()
	key, err := signing.GenerateKey(2048)
	if err != nil {
		t.Fatal(err)
	}
	client, err := payapi.New(payapi.Config{BaseURL: srv.URL, Project: "p", Signer: signing.NewRSASigner(key, signing.PKCS1v15)})
	if err != nil {
		t.Fatal(err)
	}
	p := newTestPipeline(t, &fakeAPI{}, func(c *Config) { c.API = client })
	rec := &kgo.Record{Topic: p.cfg.Topics.Commands["capture"], Key: []byte("key-trace-1"),
		Value: []byte(`{"session_id":"ps_1"}`), Timestamp: testNow,
		Headers: []kgo.RecordHeader{{Key: "traceparent", Value: []byte(tp)}, {Key: "tracestate", Value: []byte(ts)}, {Key: "other", Value: []byte("x")}}}
	out := p.process(context.Background(), newInbound(rec, "capture", false))
	h := <-got
	if h.Get("traceparent") != tp || h.Get("tracestate") != ts {
		t.Fatalf("API request trace headers = %q %q", h.Get("traceparent"), h.Get("tracestate"))
	}
	recs, err := p.outcomeRecords(context.Background(), out, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 2 {
		t.Fatalf("want a result and a session state, got %d records", len(recs))
	}
	for _, r := range recs {
		hs := map[string]string{}
		for _, h := range r.Headers {
			hs[h.Key] = string(h.Value)
		}
		if hs["traceparent"] != tp || hs["tracestate"] != ts || hs["other"] != "" {
			t.Errorf("%s record headers = %v, want only the trace context", r.Topic, hs)
		}
	}
}
