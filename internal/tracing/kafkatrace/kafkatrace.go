// Package kafkatrace carries the connector's trace context through Kafka
// records (W3C traceparent and tracestate headers) and gives its clients
// franz-go's kotel hooks while tracing is on. It is apart from package
// tracing so that the API client, which knows nothing of Kafka, can trace
// without importing a Kafka client.
package kafkatrace

import (
	"context"
	"errors"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/plugin/kotel"
	"go.opentelemetry.io/otel/trace"

	"github.com/paysession/paysession/internal/tracing"
)

// Hooks returns the franz-go hooks that trace a client's records
// (kotel: a publish span per produced record, whose context it writes into
// the record's traceparent, and a receive span per fetched record, child of
// the record's traceparent, left in the record's Context), or nil while
// tracing is off.
func Hooks() []kgo.Hook {
	if !tracing.Enabled() {
		return nil
	}
	t := kotel.NewTracer(kotel.TracerProvider(tracing.Provider()), kotel.TracerPropagator(tracing.Propagator()),
		kotel.KeyFormatter(withholdKey))
	return kotel.NewKotel(kotel.WithTracer(t)).Hooks()
}

// errKeyWithheld keeps record keys out of spans.
var errKeyWithheld = errors.New("record keys are not recorded")

// withholdKey is kotel's key formatter: a command's key is any string its
// producer chose (an invalid one may be a card number), so no span carries
// a record key; the connector's own spans name the session id instead.
func withholdKey(*kgo.Record) (string, error) { return "", errKeyWithheld }

// RecordContext returns the trace context of a consumed record: the
// receive span kotel left in its Context, else the traceparent of its
// headers, on top of ctx.
func RecordContext(ctx context.Context, r *kgo.Record) context.Context {
	if r.Context != nil {
		if sc := trace.SpanContextFromContext(r.Context); sc.IsValid() {
			return trace.ContextWithSpanContext(ctx, sc)
		}
	}
	return tracing.Propagator().Extract(ctx, kotel.NewRecordCarrier(r))
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
	return trace.SpanContextFromContext(tracing.Propagator().Extract(context.Background(), kotel.NewRecordCarrier(r)))
}

// Inject writes the span context of ctx into r's traceparent and
// tracestate headers, replacing those it had, and puts ctx's span (not its
// deadline) in the record's Context, so kotel's publish span is its child. Without a valid span
// context in ctx, or while tracing is off, the record is left as it is (a
// passed-through traceparent stays).
func Inject(ctx context.Context, r *kgo.Record) {
	if !tracing.Enabled() || !trace.SpanContextFromContext(ctx).IsValid() {
		return
	}
	tracing.Propagator().Inject(ctx, kotel.NewRecordCarrier(r))
	// Only the span: a record whose Context ends is failed by the client.
	r.Context = trace.ContextWithSpan(context.Background(), trace.SpanFromContext(ctx))
}
