// Package connector composes the running product: the command pipeline
// (connector/pipeline), the webhook ingress (connector/ingress), the
// reconciler (connector/reconcile), the periodic publishers
// (connector/publish) and the operations HTTP server (health, readiness,
// metrics). cmd/connector builds a Connector from configuration and calls
// Run; Run stops every part in a fixed order when its context ends:
// webhooks first (no new requests, in-flight ones answered), then polling,
// then the pipeline (its open transaction finished or aborted), then the
// Kafka clients — each step bounded by the grace period.
package connector
