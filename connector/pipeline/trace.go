package pipeline

import (
	"context"
	"errors"

	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/tracing"
	"github.com/paysession/paysession/internal/tracing/kafkatrace"
)

// Tracing. Each command gets a consume span, child of the trace context
// its record carries (kotel's receive span, else its traceparent header),
// from the poll to its transaction's end; under it a decode span, the API
// client's span per attempt (and otelhttp's HTTP span under that), and a
// produce span whose context the command's result and session-update
// records carry (kotel writes its publish span into their traceparent).
// One commit span per batch links every command of the batch. While
// tracing is off the spans are no-ops and the records carry the command's
// own traceparent, as before.

// TracerName names the pipeline's tracer.
const TracerName = "github.com/paysession/paysession/connector/pipeline"

func tracer() trace.Tracer { return tracing.Tracer(TracerName) }

// noSpan is the span of work done while tracing is off: nothing is
// started, nothing allocated.
var noSpan = trace.SpanFromContext(context.Background())

// startConsume starts the command's consume span.
func (in *inbound) startConsume() {
	if !tracing.Enabled() {
		return
	}
	ctx := kafkatrace.RecordContext(context.Background(), in.rec)
	_, in.span = tracer().Start(ctx, "pipeline consume "+in.kind, trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(attribute.String("messaging.destination.name", in.rec.Topic),
			attribute.Int("messaging.kafka.destination.partition", int(in.rec.Partition)),
			attribute.Int64("messaging.kafka.message.offset", in.rec.Offset),
			attribute.String("paysession.command.kind", in.kind),
			attribute.Bool("paysession.command.from_retry", in.fromRetry)))
}

// traced returns ctx with the command's consume span as the active span.
func (in *inbound) traced(ctx context.Context) context.Context {
	if in.span == nil {
		return ctx
	}
	return trace.ContextWithSpan(ctx, in.span)
}

// startDecodeSpan starts the decode-and-validate span of a command.
func startDecodeSpan(ctx context.Context, in *inbound) (context.Context, trace.Span) {
	if in.span == nil {
		return ctx, noSpan
	}
	return tracer().Start(in.traced(ctx), "pipeline decode "+in.kind)
}

// endDecodeSpan ends it with what decoding found.
func endDecodeSpan(span trace.Span, cmd *command, err error) {
	if !span.IsRecording() {
		span.End()
		return
	}
	var inv *invalidError
	var tr *transientError
	switch {
	case errors.As(err, &inv):
		span.SetAttributes(attribute.String("paysession.decode.error", inv.Code), attribute.String("paysession.decode.field", inv.Field))
		span.SetStatus(codes.Error, inv.Code)
	case errors.As(err, &tr):
		span.SetAttributes(attribute.String("paysession.decode.error", "transient"))
		span.SetStatus(codes.Error, "transient")
	case cmd != nil && cmd.SessionID != "":
		span.SetAttributes(attribute.String("paysession.session_id", cmd.SessionID))
	}
	span.End()
}

// startProduceSpan starts the span of building and producing a command's
// outcome records; tracing.Inject puts it on each of them.
func startProduceSpan(ctx context.Context, out *outcome) (context.Context, trace.Span) {
	if out.in.span == nil {
		return ctx, noSpan
	}
	return tracer().Start(out.in.traced(ctx), "pipeline produce "+out.in.kind, trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(attribute.String("paysession.command.status", string(out.verdict.Status)),
			attribute.String("paysession.session_id", out.sessionID)))
}

// injectAll writes ctx's span context into every record.
func injectAll(ctx context.Context, recs []*kgo.Record) {
	if !tracing.Enabled() {
		return
	}
	for _, r := range recs {
		kafkatrace.Inject(ctx, r)
	}
}

// startCommitSpan starts the span of ending a batch's transaction, linked
// to the consume span of every command of the batch.
func startCommitSpan(b *batch) trace.Span {
	if !tracing.Enabled() {
		return noSpan
	}
	links := make([]trace.Link, 0, len(b.ins))
	for _, in := range b.ins {
		if in.span != nil {
			links = append(links, trace.Link{SpanContext: in.span.SpanContext()})
		}
	}
	_, span := tracer().Start(context.Background(), "pipeline transaction commit", trace.WithLinks(links...),
		trace.WithAttributes(attribute.Int("paysession.batch.commands", len(b.ins))))
	return span
}

// endSpans ends the commit span and every command's consume span with how
// the transaction ended: "commit", "abort" or "unknown".
func endSpans(commit trace.Span, b *batch, end string) {
	if !commit.IsRecording() && (b == nil || len(b.ins) == 0 || b.ins[0].span == nil) {
		return
	}
	commit.SetAttributes(attribute.String("paysession.transaction", end))
	if end != "commit" {
		commit.SetStatus(codes.Error, end)
	}
	commit.End()
	if b == nil {
		return
	}
	for _, in := range b.ins {
		if in.span == nil {
			continue
		}
		in.span.SetAttributes(attribute.String("paysession.transaction", end))
		if out := b.outcomes[in]; out != nil {
			if out.park != nil {
				in.span.SetAttributes(attribute.Bool("paysession.command.parked", true))
			} else {
				in.span.SetAttributes(attribute.String("paysession.command.status", string(out.verdict.Status)))
			}
		}
		in.span.End()
	}
}

// transactionEnd names how a transaction ended, as the spans say it.
func transactionEnd(committed bool, err error) string {
	switch {
	case err != nil:
		return "unknown"
	case committed:
		return "commit"
	}
	return "abort"
}

// traceContext returns the W3C trace context a command record carries in
// its headers (traceparent, tracestate), so the API call and the outcome
// records continue the upstream trace.
func traceContext(r *kgo.Record) (parent, state string) {
	for _, h := range r.Headers {
		switch h.Key {
		case payapi.HeaderTraceParent:
			parent = string(h.Value)
		case payapi.HeaderTraceState:
			state = string(h.Value)
		}
	}
	return parent, state
}

// traceHeaders copies a command record's trace-context headers for its
// outcome records.
func traceHeaders(r *kgo.Record) []kgo.RecordHeader {
	var out []kgo.RecordHeader
	for _, h := range r.Headers {
		if h.Key == payapi.HeaderTraceParent || h.Key == payapi.HeaderTraceState {
			out = append(out, h)
		}
	}
	return out
}
