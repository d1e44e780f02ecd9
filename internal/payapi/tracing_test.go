package payapi

import (
	"context"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/paysession/paysession/internal/tracing"
)

// TestAttemptSpans: with tracing on, each call is a span with its endpoint
// and outcome, an otelhttp span under it sends the W3C traceparent of that
// span (replacing the one passed through), and no span attribute holds a
// header value or the body.
func TestAttemptSpans(t *testing.T) {
	const upstream = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	tests := []struct {
		name        string
		status      int
		body        string
		wantOutcome string
	}{
		{"ok", 200, `{"status":"ok","session":{"id":"ps_1","status":"created","created_at":"2026-11-23T10:00:00.000000Z","updated_at":"2026-11-23T10:00:00.000000Z"}}`, "ok"},
		{"refused", 400, `{"status":"error","code":"repository_record_not_found","description":"no such session"}`, "http_status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			defer tracing.Use(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))()
			f := newFakeService(t, jsonResponse(tt.status, tt.body))
			cl := newTestClient(t, f.srv.URL, 1)
			ctx := tracing.FromHeaders(context.Background(), upstream, "")
			_, _ = cl.Status(ctx, "ps_1", WithTraceContext(upstream, ""), WithIdempotencyKey("key-secret-1"))
			spans := rec.Ended()
			if len(spans) != 2 {
				t.Fatalf("%d spans, want the attempt and its HTTP span", len(spans))
			}
			byName := map[string]sdktrace.ReadOnlySpan{}
			for _, s := range spans {
				byName[s.Name()] = s
				for _, a := range s.Attributes() {
					if v := a.Value.String(); strings.Contains(v, "key-secret-1") || strings.Contains(v, "ps_1\"") || strings.Contains(v, f.last(t).Header.Get(HeaderSign)) {
						t.Errorf("span %s attribute %s holds a header value or the body: %q", s.Name(), a.Key, v)
					}
				}
			}
			call, http := byName["payapi session/status"], byName["HTTP POST /api/v1/session/status"]
			if call == nil || http == nil {
				t.Fatalf("spans %v", byName)
			}
			attrs := map[string]string{}
			for _, a := range call.Attributes() {
				attrs[string(a.Key)] = a.Value.String()
			}
			if attrs["paysession.endpoint"] != "session/status" || attrs["paysession.outcome"] != tt.wantOutcome {
				t.Errorf("attempt attributes %v, want endpoint session/status and outcome %s", attrs, tt.wantOutcome)
			}
			if call.Parent().TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || http.Parent().SpanID() != call.SpanContext().SpanID() {
				t.Error("spans are not in the caller's trace, the HTTP span under the attempt")
			}
			sent := f.last(t).Header.Get(HeaderTraceParent)
			if !strings.Contains(sent, http.SpanContext().SpanID().String()) {
				t.Errorf("request traceparent %q, want the HTTP span's %s", sent, http.SpanContext().SpanID())
			}
		})
	}
}
