// Package ingress is the connector's webhook endpoint: the Payment Session
// Service POSTs signed webhooks here, and each verified one becomes a record
// on the webhook-events topic plus, when it moves the session forward, a
// record on the sessions topic.
//
// Data path: HTTP request → method, content type, shape of X-PARTNER-SIGN
// (one header, Base64 of an RSA signature's length) and a free slot of
// MaxInFlight, all before the body is read → body up to MaxBodyBytes →
// X-PARTNER-SIGN over the raw body (any configured service key) → strict
// {type, session} parse →
// dedupe by event id (SHA-256 of the body) → records produced with acks=all
// and idempotence → 200 only once Kafka acknowledged every record, 503 when
// it cannot within PublishTimeout (the service retries for 30 minutes).
//
// Memory is bounded by MaxInFlight × MaxBodyBytes (8 MiB by default):
// unsigned requests are refused (401), and requests beyond the bound wait up
// to AdmitWait for a slot (at most MaxWaiting of them) and then get 503 with
// Retry-After, all without their bodies being read. The HTTP server in
// front (connector.HTTPServer) cuts off clients that trickle headers or body.
//
// Dedupe is per replica: a bounded in-memory cache remembers event ids for
// DedupeTTL (25 h by default). A webhook redelivered to another replica, or
// after a restart, is published again; the event id is the record's identity
// and downstream consumers dedupe by it.
package ingress
