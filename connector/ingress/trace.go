package ingress

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/paysession/paysession/internal/tracing"
)

// TracerName names the webhook endpoint's tracer.
const TracerName = "github.com/paysession/paysession/connector/ingress"

// startSpan starts the span of one webhook request, child of the trace
// context the request carries (if the service sends one). The update
// record it publishes carries the span's context, and the session writer
// links the state it writes to it. Only the path, the status code, the
// verdict, the webhook's type and its session id are recorded.
func startSpan(r *http.Request) (context.Context, trace.Span) {
	ctx := r.Context()
	if !tracing.Enabled() {
		return ctx, trace.SpanFromContext(ctx)
	}
	ctx = tracing.Propagator().Extract(ctx, propagation.HeaderCarrier(r.Header))
	return tracing.Tracer(TracerName).Start(ctx, "webhook "+r.Method, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("url.path", r.URL.Path), attribute.String("http.request.method", r.Method)))
}

// spanWriter notes the status code and verdict of the answer on the span.
type spanWriter struct {
	http.ResponseWriter
	span trace.Span
}

func (w spanWriter) WriteHeader(code int) {
	w.span.SetAttributes(attribute.Int("http.response.status_code", code))
	if code >= 500 {
		w.span.SetStatus(codes.Error, http.StatusText(code))
	}
	w.ResponseWriter.WriteHeader(code)
}

// unwrap returns the server's own ResponseWriter, which MaxBytesReader
// tells to close the connection after an oversized body.
func unwrap(w http.ResponseWriter) http.ResponseWriter {
	if sw, ok := w.(spanWriter); ok {
		return sw.ResponseWriter
	}
	return w
}

// noteVerdict records the verdict and the webhook type on the span of ctx.
func noteVerdict(ctx context.Context, typ, verdict string) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(attribute.String("paysession.webhook.verdict", verdict), attribute.String("paysession.webhook.type", typ))
	}
}
