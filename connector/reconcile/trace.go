package reconcile

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/paysession/paysession/internal/tracing"
)

// TracerName names the reconciler's tracer.
const TracerName = "github.com/paysession/paysession/connector/reconcile"

// actionNames name a task's action in its span.
var actionNames = map[action]string{actPoll: "poll", actWarn: "poll", actConfirm: "auto-confirm", actStale: "stale"}

// startTaskSpan starts the span of one task (a poll, an auto-confirm or a
// stale marker); its API calls are children, and the update it publishes
// carries its context, which the session writer links to the session's
// command trace.
func startTaskSpan(ctx context.Context, t task) (context.Context, trace.Span) {
	if !tracing.Enabled() {
		return ctx, trace.SpanFromContext(ctx)
	}
	return tracing.Tracer(TracerName).Start(ctx, "reconciler "+actionNames[t.act],
		trace.WithAttributes(attribute.String("paysession.session_id", t.id), attribute.Int("messaging.kafka.source.partition", int(t.partition))))
}

// endTaskSpan ends it with whether the task learned something.
func endTaskSpan(span trace.Span, learned bool, err error) {
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(attribute.Bool("paysession.reconcile.learned", learned))
	if err != nil {
		span.SetStatus(codes.Error, "reconcile call failed")
	}
	span.End()
}

// noteConfirm records an auto-confirm's result on the span of ctx.
func noteConfirm(ctx context.Context, result string) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(attribute.String("paysession.confirm.result", result))
	}
}
