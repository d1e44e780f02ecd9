// Package ingress is the connector's webhook endpoint: the Payment Session
// Service POSTs signed webhooks here, and each verified one becomes one
// update record on the session-updates topic (its session state, with the
// event id and type as headers). The session writer (connector/sessionwriter)
// derives the webhook-events record (once per event id) and the sessions
// record (only when it moves the session forward) from it.
//
// One connector serves several partner projects, and a webhook names none:
// the default project's webhooks arrive at Path, each further project's at
// Path + "/" + its id (projects.go). The path is where the ingress asks,
// not whose session it is: neither path nor signature (one service key
// signs every project's webhooks) proves that.
//
// Data path: HTTP request → method, content type and shape of
// X-PARTNER-SIGN (one header, Base64 of an RSA signature's length), before
// the body is read → body up to MaxBodyBytes within BodyTimeout →
// X-PARTNER-SIGN over the raw body (any configured service key) → strict
// {type, session} parse → bound to a session of the connector's and its
// project (binding.go) → a free slot of MaxInFlight → dedupe by event id
// (SHA-256 of what the event means: eventid.go) → update produced with
// acks=all and idempotence → 200 only once Kafka acknowledged it, 503 when
// it cannot within PublishTimeout (the service retries for 30 minutes).
//
// Binding: a webhook is published only for a session this replica's
// session writer holds (Sessions: it owns the session's partition), or one
// confirmed earlier, or one session/status finds under the path's project
// (API; at most MaxChecks calls in flight, each within CheckTimeout), and
// its state names the session's project, never the path's guess. A session
// held under another project, or not found under the path's, is answered
// 200 with nothing published (verdicts foreign_project, unknown_session);
// a failed or overloaded check 503. Another replica's writer may hold a
// session, and after a restart none does until the takeover: the status
// check is what makes the binding correct on any replica at any time; the
// local lookup and the cache of confirmed sessions only spare the call.
//
// The event id is derived from the event's meaning (type; session id,
// status, next_action, updated_at; operations' and refunds' ids and
// statuses), so a webhook serialized anew is a redelivery, not a second
// event. This departs from ARCHITECTURE.md's "hash of the body".
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
// its event once (by event id within its event window, and as a replay
// beyond it) and its state only if newer. The ingress keeps no session
// state: a replayed old webhook cannot move a session backwards whichever
// replica receives it.
package ingress
