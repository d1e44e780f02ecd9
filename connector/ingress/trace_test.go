package ingress

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/paysession/paysession/internal/tracing"
)

// TestWebhookSpan: with tracing on, each webhook request is a server span
// (child of a traceparent the service sends) with its status code and
// verdict, and the update it publishes carries the span's context; a
// refused request is a span too, and publishes nothing.
func TestWebhookSpan(t *testing.T) {
	const incoming = "4bf92f3577b34da6a3ce929d0e0e4736"
	tests := []struct {
		name        string
		signed      bool
		wantCode    int
		wantVerdict string
	}{
		{"accepted", true, 200, verdictAccepted},
		{"unsigned", false, 401, verdictBadSignature},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			defer tracing.Use(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))()
			f := newFixture(t, nil)
			b := body("payment_finished", "ps_7", "in_progress", 3)
			req := httptest.NewRequest(http.MethodPost, "/webhooks", bytes.NewReader(b))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("traceparent", "00-"+incoming+"-00f067aa0ba902b7-01")
			if tc.signed {
				req.Header.Set("X-PARTNER-SIGN", sign(t, f.key, b))
			}
			w := httptest.NewRecorder()
			f.in.ServeHTTP(w, req)
			if w.Code != tc.wantCode {
				t.Fatalf("status %d, want %d", w.Code, tc.wantCode)
			}
			spans := rec.Ended()
			if len(spans) != 1 {
				t.Fatalf("%d spans, want the request's", len(spans))
			}
			s := spans[0]
			attrs := attribute.NewSet(s.Attributes()...)
			if v, _ := attrs.Value("http.response.status_code"); v.AsInt64() != int64(tc.wantCode) {
				t.Errorf("status attribute %v", v.String())
			}
			if v, _ := attrs.Value("paysession.webhook.verdict"); v.AsString() != tc.wantVerdict {
				t.Errorf("verdict attribute %q, want %q", v.AsString(), tc.wantVerdict)
			}
			if s.Parent().TraceID().String() != incoming || s.SpanContext().TraceID().String() != incoming {
				t.Errorf("span not in the incoming trace")
			}
			up := f.prod.last(updatesTopic)
			if !tc.signed {
				if up != nil {
					t.Fatal("a refused webhook published an update")
				}
				return
			}
			if tp := headerOf(up, "traceparent"); !strings.Contains(tp, s.SpanContext().SpanID().String()) {
				t.Errorf("update traceparent %q, want the webhook span %s", tp, s.SpanContext().SpanID())
			}
		})
	}
}
