package pipeline

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/paysession/paysession/connector/sessionwriter"
	"github.com/paysession/paysession/internal/header"
	"github.com/paysession/paysession/internal/payapi"

	"github.com/paysession/paysession/internal/signing"
	"github.com/paysession/paysession/internal/tracing"
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
	out := p.process(context.Background(), p.polled(rec, "capture", false))
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

// TestSpansOfACommand: with tracing on, a command's consume span is a
// child of its traceparent; decode and the API attempt are under it; its
// outcome records carry the produce span's context (not the upstream
// one, which kotel's publish span would otherwise replace by a new root),
// its session updates say they come from a command, and a parked
// command's retry record carries the consume span's context.
func TestSpansOfACommand(t *testing.T) {
	const upstream = "4bf92f3577b34da6a3ce929d0e0e4736"
	rec := tracetest.NewSpanRecorder()
	defer tracing.Use(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))()
	p := newTestPipeline(t, &fakeAPI{}, nil)
	cmd := func(key string) *inbound {
		in := newInbound(&kgo.Record{Topic: p.cfg.Topics.Commands["capture"], Key: []byte(key),
			Value: []byte(`{"session_id":"ps_1"}`), Timestamp: testNow,
			Headers: []kgo.RecordHeader{{Key: "traceparent", Value: []byte("00-" + upstream + "-00f067aa0ba902b7-01")}}}, "capture", false)
		in.startConsume()
		p.read(context.Background(), in)
		return in
	}
	done, parked := cmd("key-span-1"), cmd("key-span-2")
	b := &batch{ins: []*inbound{done, parked}, outcomes: map[*inbound]*outcome{
		done: p.process(context.Background(), done), parked: park(parked, retryState{nextAttempt: testNow}, false)}}
	recs, err := p.recordsOf(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	endSpans(startCommitSpan(b), b, "commit")
	spans := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		if s.SpanContext().TraceID().String() != upstream && s.Name() != "pipeline transaction commit" {
			t.Errorf("span %s not in the command's trace", s.Name())
		}
		if _, ok := spans[s.Name()]; !ok || s.Name() == "pipeline produce capture" {
			spans[s.Name()] = s
		}
	}
	for _, name := range []string{"pipeline consume capture", "pipeline decode capture", "pipeline produce capture", "pipeline transaction commit"} {
		if spans[name] == nil {
			t.Fatalf("no span %q among %v", name, spans)
		}
	}
	if got := spans["pipeline consume capture"].Parent().SpanID().String(); got != "00f067aa0ba902b7" {
		t.Errorf("consume span's parent %s, want the command's traceparent", got)
	}
	if len(spans["pipeline transaction commit"].Links()) != 2 {
		t.Errorf("commit span links %d commands, want 2", len(spans["pipeline transaction commit"].Links()))
	}
	produce := spans["pipeline produce capture"].SpanContext().SpanID().String()
	consumeOf := map[string]string{done.span.SpanContext().SpanID().String(): "done", parked.span.SpanContext().SpanID().String(): "parked"}
	var origins, retries int
	for _, r := range recs {
		tp, _ := header.Get(r, "traceparent")
		if !strings.Contains(tp, upstream) {
			t.Errorf("%s record traceparent %q, want the command's trace", r.Topic, tp)
		}
		if r.Topic == p.cfg.Topics.Retry {
			retries++
			if consumeOf[tp[36:52]] != "parked" {
				t.Errorf("retry record traceparent %q, want the parked command's consume span", tp)
			}
			continue
		}
		if tp[36:52] != produce {
			t.Errorf("%s record traceparent %q, want the produce span %s", r.Topic, tp, produce)
		}
		if v, _ := header.Get(r, sessionwriter.HeaderOrigin); v == sessionwriter.OriginCommand {
			origins++
		}
	}
	if retries != 1 || origins == 0 {
		t.Errorf("%d retry records, %d updates marked as from a command; want 1 and some", retries, origins)
	}
}
