package pipeline

import (
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/payapi"
)

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
