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
// Data path: HTTP request → method, content type and shape of
// X-PARTNER-SIGN (one header, Base64 of an RSA signature's length), before
// the body is read → body up to MaxBodyBytes within BodyTimeout →
// X-PARTNER-SIGN over the raw body (any configured service key) → strict
// {type, session} parse → a free slot of MaxInFlight →
// dedupe by event id (SHA-256 of the body with card data masked: EventID) → update produced with acks=all
// and idempotence → 200 only once Kafka acknowledged it, 503 when it cannot
// within PublishTimeout (the service retries for 30 minutes).
//
// Only a verified webhook takes a slot of MaxInFlight, so a client without
// the service's key cannot take the slots from the service however slowly
// it sends: it holds its connection and its body for at most BodyTimeout
// (408), or until its signature fails (401). Unsigned requests are refused
// (401) without their bodies being read. Verified webhooks beyond
// MaxInFlight wait up to AdmitWait for a slot (at most MaxWaiting of them)
// and then get 503 with Retry-After.
//
// Memory is bounded by MaxBodies × MaxBodyBytes (64 MiB by default): every
// request holding a body, whether reading, verifying, waiting or
// publishing, holds one of MaxBodies, and one more gets 503 unread. The
// server in front (connector.HTTPServer) caps the webhook port's
// connections at the same number (PAYSESSION_WEBHOOK_MAX_CONNECTIONS), so
// the cap binds first and the connections beyond it wait in the kernel's
// backlog; it also cuts off clients that trickle their headers.
//
// The in-memory dedupe here only spares Kafka a second update when the same
// replica gets a redelivery; a webhook redelivered to another replica, or
// after a restart, becomes a second update, and the session writer writes
// its event once and its state only if newer. The ingress keeps no session
// state: a replayed old webhook cannot move a session backwards whichever
// replica receives it.
package ingress
