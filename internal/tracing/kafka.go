package tracing

import (
	"context"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/plugin/kotel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
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

// KafkaHooks returns the franz-go hooks that trace a client's records
// (kotel: a publish span per produced record, whose context it writes into
// the record's traceparent, and a receive span per fetched record, child of
// the record's traceparent, left in the record's Context), or nil while
// tracing is off.
func KafkaHooks() []kgo.Hook {
	if !Enabled() {
		return nil
	}
	t := kotel.NewTracer(kotel.TracerProvider(Provider()), kotel.TracerPropagator(propagator))
	return kotel.NewKotel(kotel.WithTracer(t)).Hooks()
}

// RecordContext returns the trace context of a consumed record: the
// receive span kotel left in its Context, else the traceparent of its
// headers, on top of ctx.
func RecordContext(ctx context.Context, r *kgo.Record) context.Context {
	if r.Context != nil {
		if sc := trace.SpanContextFromContext(r.Context); sc.IsValid() {
			return trace.ContextWithSpanContext(ctx, sc)
		}
	}
	return propagator.Extract(ctx, kotel.NewRecordCarrier(r))
}

// WithRecordSpan returns ctx with the span of a record's Context (set by
// Inject), so producing the record under ctx keeps its trace.
func WithRecordSpan(ctx context.Context, r *kgo.Record) context.Context {
	if r.Context == nil {
		return ctx
	}
	if span := trace.SpanFromContext(r.Context); span.SpanContext().IsValid() {
		return trace.ContextWithSpan(ctx, span)
	}
	return ctx
}

// RecordSpanContext returns the span context a record's headers carry
// (invalid when none).
func RecordSpanContext(r *kgo.Record) trace.SpanContext {
	return trace.SpanContextFromContext(propagator.Extract(context.Background(), kotel.NewRecordCarrier(r)))
}

// Inject writes the span context of ctx into r's traceparent and
// tracestate headers, replacing those it had, and puts ctx's span (not its
// deadline) in the record's Context, so kotel's publish span is its child. Without a valid span
// context in ctx the record is left as it is (a passed-through traceparent
// stays).
func Inject(ctx context.Context, r *kgo.Record) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return
	}
	propagator.Inject(ctx, kotel.NewRecordCarrier(r))
	// Only the span: a record whose Context ends is failed by the client.
	r.Context = trace.ContextWithSpan(context.Background(), trace.SpanFromContext(ctx))
}

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
