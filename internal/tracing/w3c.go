package tracing

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
)

// W3C trace-context header names, on HTTP requests and Kafka records.
const (
	HeaderTraceParent = "traceparent"
	HeaderTraceState  = "tracestate"
)

// propagator is W3C trace context: what records and requests carry.
var propagator = propagation.TraceContext{}

// Propagator returns the W3C trace-context propagator.
func Propagator() propagation.TextMapPropagator { return propagator }

// FromHeaders returns ctx with the span context of W3C traceparent and
// tracestate values as its remote parent (ctx unchanged when they do not
// parse).
func FromHeaders(ctx context.Context, traceparent, tracestate string) context.Context {
	if traceparent == "" {
		return ctx
	}
	return propagator.Extract(ctx, propagation.MapCarrier{HeaderTraceParent: traceparent, HeaderTraceState: tracestate})
}

// Headers returns the W3C traceparent and tracestate of the span context
// in ctx ("" when none).
func Headers(ctx context.Context) (traceparent, tracestate string) {
	c := propagation.MapCarrier{}
	propagator.Inject(ctx, c)
	return c[HeaderTraceParent], c[HeaderTraceState]
}
