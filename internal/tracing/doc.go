// Package tracing holds the connector's OpenTelemetry tracer provider and
// the W3C trace-context helpers its parts share.
//
// Tracing is off unless an exporter is configured by the standard OTEL_*
// variables (Setup): OTEL_TRACES_EXPORTER=otlp, or, with that variable
// unset, OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT.
// While it is off, Tracer returns a no-op tracer, KafkaHooks returns no
// hooks and the API client's transport is not wrapped, so the data path
// does what it did before at the cost of a no-op span start; the
// traceparent a command carries is still passed through unchanged.
//
// Spans never carry a request or record body, a header value or a card
// number: only endpoints, topics, partitions, session ids, outcomes and
// status codes.
package tracing
