package payapi

import "regexp"

// W3C Trace Context header names.
const (
	HeaderTraceParent = "traceparent"
	HeaderTraceState  = "tracestate"
)

var traceParentRE = regexp.MustCompile(`^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)

// WithTraceContext sends a W3C trace context (traceparent, and tracestate
// when traceparent is sent) with the request, so a trace started upstream
// continues through the API call. A malformed traceparent is not sent.
func WithTraceContext(traceparent, tracestate string) CallOption {
	return func(o *callOptions) {
		if !traceParentRE.MatchString(traceparent) {
			return
		}
		o.traceparent, o.tracestate = traceparent, tracestate
		if len(o.tracestate) > 512 {
			o.tracestate = ""
		}
	}
}
