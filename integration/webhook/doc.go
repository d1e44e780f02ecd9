// Package webhook holds the end-to-end tests of the connector's webhook
// path: the sandbox (internal/paysim) sends real signed webhooks to the
// ingress, whose records land on a real Kafka broker; the reconciler polls
// the sandbox when webhooks cannot get through.
package webhook
