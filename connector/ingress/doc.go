// Package ingress is the connector's webhook endpoint: the Payment Session
// Service POSTs signed webhooks here, and each verified one becomes one
// update record on the session-updates topic (its session state, with the
// event id and type as headers). The session writer (connector/sessionwriter)
// derives the webhook-events record (once per event id) and the sessions
// record (only when it moves the session forward) from it.
//
// One connector serves several partner projects, and a webhook names none:
// the default project's webhooks arrive at Path, each further project's at
// Path + "/" + its id (projects.go), and the state proposed names the
// project of its path, so that the reconciler polls the session under it.
//
// Data path: HTTP request → method, content type, shape of X-PARTNER-SIGN
// (one header, Base64 of an RSA signature's length) and a free slot of
// MaxInFlight, all before the body is read → body up to MaxBodyBytes →
// X-PARTNER-SIGN over the raw body (any configured service key) → strict
// {type, session} parse →
// dedupe by event id (SHA-256 of the body with card data masked: EventID) → update produced with acks=all
// and idempotence → 200 only once Kafka acknowledged it, 503 when it cannot
// within PublishTimeout (the service retries for 30 minutes).
//
// Memory is bounded by MaxInFlight × MaxBodyBytes (8 MiB by default):
// unsigned requests are refused (401), and requests beyond the bound wait up
// to AdmitWait for a slot (at most MaxWaiting of them) and then get 503 with
// Retry-After, all without their bodies being read. The HTTP server in
// front (connector.HTTPServer) cuts off clients that trickle headers or body.
//
// The in-memory dedupe here only spares Kafka a second update when the same
// replica gets a redelivery; a webhook redelivered to another replica, or
// after a restart, becomes a second update, and the session writer writes
// its event once and its state only if newer. The ingress keeps no session
// state: a replayed old webhook cannot move a session backwards whichever
// replica receives it.
package ingress
