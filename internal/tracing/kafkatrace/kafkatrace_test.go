package kafkatrace

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/paysession/paysession/internal/tracing"
)

func TestInjectReplacesTheTraceparentAndKeepsOnlyTheSpan(t *testing.T) {
	defer tracing.Use(sdktrace.NewTracerProvider())()
	r := &kgo.Record{Headers: []kgo.RecordHeader{{Key: tracing.HeaderTraceParent, Value: []byte("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")}}}
	parent := RecordContext(context.Background(), r)
	if got := trace.SpanContextFromContext(parent).TraceID().String(); got != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Fatalf("record context trace %s", got)
	}
	ctx, cancel := context.WithCancel(parent)
	ctx, span := tracing.Tracer("t").Start(ctx, "child")
	defer span.End()
	out := &kgo.Record{Headers: append([]kgo.RecordHeader(nil), r.Headers...)}
	Inject(ctx, out)
	cancel()
	if len(out.Headers) != 1 {
		t.Fatalf("headers %v, want the one traceparent replaced", out.Headers)
	}
	if sc := RecordSpanContext(out); sc.SpanID() != span.SpanContext().SpanID() || sc.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Fatalf("record carries %v, want the child span of the command's trace", sc)
	}
	if out.Context.Err() != nil {
		t.Fatal("the record's Context ends with the caller's: the client would fail the record")
	}
}
