package logging

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

func TestTraceIDsOnLinesLoggedInASpan(t *testing.T) {
	tid, _ := trace.TraceIDFromHex("0af7651916cd43dd8448eb211c80319c")
	sid, _ := trace.SpanIDFromHex("b7ad6b7169203331")
	inSpan := trace.ContextWithSpanContext(context.Background(),
		trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))
	tests := []struct {
		name             string
		ctx              context.Context
		wantTrace, wantS string
	}{
		{"in a span", inSpan, tid.String(), sid.String()},
		{"no span", context.Background(), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			log := New(&buf, "info", "json").With("part", "test")
			log.InfoContext(tt.ctx, "hello", "pan", "4111111111111111")
			var line map[string]any
			if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			if got, _ := line["trace_id"].(string); got != tt.wantTrace {
				t.Errorf("trace_id = %q, want %q", got, tt.wantTrace)
			}
			if got, _ := line["span_id"].(string); got != tt.wantS {
				t.Errorf("span_id = %q, want %q", got, tt.wantS)
			}
			if line["pan"] != masked || line["part"] != "test" {
				t.Errorf("line %v: redaction or attributes lost", line)
			}
		})
	}
}
