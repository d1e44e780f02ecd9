// Package tracing is the end-to-end test of the connector's traces: two
// in-process replicas on the shared broker export over OTLP/HTTP to a
// receiver inside the test (an OpenTelemetry Collector is too big to build
// here; the receiver decodes the collector's trace service request with
// go.opentelemetry.io/proto/otlp, as a collector's OTLP/HTTP receiver
// does), and one payout, whose command runs on one replica and whose
// webhook arrives at the other, must show as one trace from the command to
// its final state.
package tracing
