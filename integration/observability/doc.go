// Package observability proves the connector's dashboard and alerts against
// a real Prometheus: it fetches Debian's prometheus package into the
// repository's .cache (as the harness fetches the Kafka broker's jars),
// runs Prometheus scraping a connector under load with the chart's rule
// file, and evaluates every panel query of the chart's Grafana dashboard and
// every series each alert reads. Its tests also hold the chart README's metrics
// list to the metrics the code defines and its runbook to the alerts.
//
// The dashboard and rules live in the chart (helm/paysession-connector/
// files), which ships them as a ConfigMap and a PrometheusRule.
package observability
