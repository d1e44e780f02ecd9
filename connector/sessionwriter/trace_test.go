package sessionwriter

import (
	"context"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/paysession/paysession/internal/header"
	"github.com/paysession/paysession/internal/tracing"
)

const (
	commandTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	webhookTrace = "0af7651916cd43dd8448eb211c80319c"
)

func traceparent(traceID, spanID string) kgo.RecordHeader {
	return kgo.RecordHeader{Key: "traceparent", Value: []byte("00-" + traceID + "-" + spanID + "-01")}
}

// TestWriteSpansContinueTheCommandTrace: whichever of a command's update
// and a webhook's arrives first, the command's trace reaches the write of
// the webhook's state — as the write's parent when the command came first,
// by a link from the command's (superseded) span when the webhook came
// first — and a later, newer state (a poll) is written in the command's trace.
func TestWriteSpansContinueTheCommandTrace(t *testing.T) {
	cmd := func(min int) *kgo.Record {
		return update(t, min, "in_progress", traceparent(commandTrace, "00f067aa0ba902b7"), FromCommand())
	}
	hook := func(min int) *kgo.Record {
		return update(t, min, "succeeded", traceparent(webhookTrace, "b7ad6b7169203331"), eventHeader("ev-1"))
	}
	poll := update(t, 9, "succeeded", traceparent("11111111111111111111111111111111", "2222222222222222"))
	tests := []struct {
		name  string
		order []*kgo.Record
		// the span that writes the webhook's state, and the trace of the
		// webhook's sessions record
		wantHookWriteTrace, wantHookRecordTrace string
		wantSupersededLink                      bool
	}{
		{"command first", []*kgo.Record{cmd(1), hook(2), poll}, commandTrace, commandTrace, false},
		{"webhook first", []*kgo.Record{hook(2), cmd(1), poll}, webhookTrace, webhookTrace, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			defer tracing.Use(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))()
			w := testWriter(t, nil)
			part := newPartition()
			var j journal
			var hookRecord, pollRecord *kgo.Record
			for _, r := range tt.order {
				d, err := w.derive(context.Background(), r, part, &j, w.cutoffs())
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := header.Get(r, HeaderEventID); ok {
					hookRecord = d.state
				}
				if r == poll {
					pollRecord = d.state
				}
				if d.state != nil {
					if _, ok := header.Get(d.state, HeaderOrigin); ok {
						t.Error("the origin header was copied onto a sessions record")
					}
				}
			}
			spans := rec.Ended()
			var hookWrite, superseded sdktrace.ReadOnlySpan
			for _, s := range spans {
				switch {
				case s.Name() == "session writer write succeeded" && hookWrite == nil: // the webhook's comes before the poll's
					hookWrite = s
				case strings.HasPrefix(s.Name(), "session writer superseded"):
					superseded = s
				}
			}
			if hookWrite == nil {
				t.Fatalf("no write span of the webhook's state among %d spans", len(spans))
			}
			if got := hookWrite.SpanContext().TraceID().String(); got != tt.wantHookWriteTrace {
				t.Errorf("webhook state written in trace %s, want %s", got, tt.wantHookWriteTrace)
			}
			if tt.wantHookWriteTrace == commandTrace && (len(hookWrite.Links()) != 1 || hookWrite.Links()[0].SpanContext.TraceID().String() != webhookTrace) {
				t.Errorf("webhook state's write links %v, want the webhook's trace", hookWrite.Links())
			}
			if hookRecord == nil || !strings.Contains(string(headerValue(hookRecord, "traceparent")), tt.wantHookRecordTrace) {
				t.Errorf("webhook's sessions record traceparent %q, want trace %s", headerValue(hookRecord, "traceparent"), tt.wantHookRecordTrace)
			}
			if tt.wantSupersededLink {
				if superseded == nil || superseded.SpanContext().TraceID().String() != commandTrace ||
					len(superseded.Links()) != 1 || !superseded.Links()[0].SpanContext.Equal(hookWrite.SpanContext()) {
					t.Errorf("the late command's span does not link the write of the newer state: %v", superseded)
				}
			} else if superseded != nil {
				t.Errorf("unexpected superseded span %s", superseded.Name())
			}
			if pollRecord == nil || !strings.Contains(string(headerValue(pollRecord, "traceparent")), commandTrace) {
				t.Errorf("the later poll's sessions record traceparent %q, want the command's trace", headerValue(pollRecord, "traceparent"))
			}
		})
	}
}

func headerValue(r *kgo.Record, k string) []byte {
	if r == nil {
		return nil
	}
	v, _ := header.Get(r, k)
	return []byte(v)
}
