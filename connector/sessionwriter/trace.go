package sessionwriter

import (
	"context"

	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
	"github.com/paysession/paysession/internal/tracing"
	"github.com/paysession/paysession/internal/tracing/kafkatrace"
)

// Tracing. The writer keeps, per session of its partitions, the span
// context of the last update that came from a command (HeaderOrigin), or,
// when no command's is known, of its own last write of the session (after
// a takeover: the traceparent of the session's record on the sessions
// topic). Writing a state makes a write span:
//
//   - for an update from a command, child of the update's trace context
//     (the pipeline's produce span, through kotel's publish and receive
//     spans);
//   - for an update from a webhook or a poll, child of the session's kept
//     command context, linked to the update's own (the webhook request's or
//     the reconciler poll's trace), so the command's trace goes on to the
//     final state across replicas: the context travels in Kafka headers.
//
// A command's update that arrives after a newer state was written (the
// webhook overtook the command's transaction) is not written, but still
// gets a span in the command's trace, linked to the write of that newer
// state, and its context is kept for the states that follow.
//
// The sessions record carries the write span's context as its
// traceparent. While tracing is off nothing is kept and no header changes.

// TracerName names the session writer's tracer.
const TracerName = "github.com/paysession/paysession/connector/sessionwriter"

// sessionTrace is what the writer keeps of a session's trace.
type sessionTrace struct {
	sc          trace.SpanContext
	fromCommand bool // sc is a command's (else the writer's last write)
}

// traceChange is a kept span context as a transaction found it.
type traceChange struct {
	part *partition
	id   string
	prev sessionTrace
	had  bool
}

// setTrace keeps st as session id's trace, journaled.
func (j *journal) setTrace(p *partition, id string, st sessionTrace) {
	prev, had := p.traces.get(id)
	j.traces = append(j.traces, traceChange{p, id, prev, had})
	p.traces.set(id, st)
}

// undoTraces takes back kept span contexts, newest first.
func (j *journal) undoTraces() {
	for i := len(j.traces) - 1; i >= 0; i-- {
		c := j.traces[i]
		if c.had {
			c.part.traces.set(c.id, c.prev)
		} else {
			c.part.traces.del(c.id)
		}
	}
}

// learnTrace keeps the traceparent of a sessions record read at takeover:
// a write span in the command's trace when one was known.
func learnTrace(r *kgo.Record, part *partition) {
	if !tracing.Enabled() {
		return
	}
	if sc := kafkatrace.RecordSpanContext(r); sc.IsValid() {
		part.traces.set(string(r.Key), sessionTrace{sc: sc, fromCommand: true})
	}
}

// traceWrite makes the span of what the writer did with update rec (d),
// keeps the trace of rec's session, and puts the span's context on the
// records d writes.
func (w *Writer) traceWrite(rec *kgo.Record, st *codec.SessionState, part *partition, j *journal, d derived) {
	if !tracing.Enabled() {
		return
	}
	id := st.Session.ID
	own := trace.SpanContextFromContext(kafkatrace.RecordContext(context.Background(), rec))
	origin, _ := header.Get(rec, HeaderOrigin)
	fromCommand := origin == OriginCommand
	if d.state == nil && !fromCommand {
		return // an old webhook or poll: nothing written, nothing to tell
	}
	kept, known := part.traces.get(id)
	name := "session writer write " + st.Session.Status
	if d.state == nil {
		name = "session writer superseded " + st.Session.Status
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindProducer), trace.WithAttributes(
		attribute.String("paysession.session_id", id), attribute.String("paysession.session.status", st.Session.Status),
		attribute.String("paysession.state.source", string(st.Source)), attribute.String("paysession.writer.result", d.result),
		attribute.Int("messaging.kafka.destination.partition", int(rec.Partition)))}
	parent := own
	switch {
	case !fromCommand && known && kept.fromCommand:
		parent = kept.sc
		if own.IsValid() {
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: own,
				Attributes: []attribute.KeyValue{attribute.String("paysession.link", "update")}}))
		}
		opts = append(opts, trace.WithAttributes(attribute.Bool("paysession.continues_command_trace", true)))
	case fromCommand && known && !kept.fromCommand && kept.sc.IsValid():
		// A newer state was written before the command's: link it.
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: kept.sc,
			Attributes: []attribute.KeyValue{attribute.String("paysession.link", "newer_state")}}))
	}
	ctx := context.Background()
	if parent.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, parent)
	}
	ctx, span := tracing.Tracer(TracerName).Start(ctx, name, opts...)
	span.End()
	switch {
	case fromCommand && own.IsValid():
		j.setTrace(part, id, sessionTrace{sc: own, fromCommand: true})
	case d.state != nil && !(known && kept.fromCommand):
		j.setTrace(part, id, sessionTrace{sc: span.SpanContext()})
	}
	if d.state != nil {
		kafkatrace.Inject(ctx, d.state)
	}
	if d.event != nil && own.IsValid() {
		// The webhook event stays in the webhook's trace.
		kafkatrace.Inject(trace.ContextWithRemoteSpanContext(context.Background(), own), d.event)
	}
}

// startTransactionSpan starts the span of one transaction of the writer.
func startTransactionSpan(updates int) trace.Span {
	if !tracing.Enabled() {
		return trace.SpanFromContext(context.Background()) // no-op, nothing allocated
	}
	_, span := tracing.Tracer(TracerName).Start(context.Background(), "session writer transaction",
		trace.WithAttributes(attribute.Int("paysession.writer.updates", updates)))
	return span
}

// endTransactionSpan ends it with how the transaction ended.
func endTransactionSpan(span trace.Span, end string) {
	span.SetAttributes(attribute.String("paysession.transaction", end))
	if end != "commit" {
		span.SetStatus(codes.Error, end)
	}
	span.End()
}
