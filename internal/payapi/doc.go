// Package payapi is the typed client of the Payment Session Service. It sits
// at the outbound edge of the connector's data path: the command pipeline
// calls it to execute a validated command, the reconciler calls Status, and
// the webhook ingress uses VerifyWebhook/ParseWebhook on inbound bodies.
//
// Callers see one version-neutral model (Session, Operation, Instrument, ...).
// The JSON names of API v1 and v2 (payment_method/payout_details,
// payments/payout_list, acquiring_payments/payment_list) exist only in the
// wire mapping (wire_request.go for what is sent, wire_response.go for what is
// read), which never mixes the two: a response that carries the other
// version's names is rejected as a malformed response rather than half read.
//
// Every request body is serialized once, exactly those bytes are signed
// (signing.Signer, Base64 in X-PARTNER-SIGN) and sent. Every failure is a
// *Error classified as retryable or final, with Sent telling whether the
// request may have reached the service (an ambiguous outcome). Card numbers,
// security codes and keys never appear in an error or a log line: the
// service's error descriptions (which may echo the request) go through the
// one matcher of card data (sensitive.Scrub), and the field and rule of an
// invalid_request are parsed, never copied (fieldRule).
//
// What the spec leaves open is read leniently where a strict reading would
// lose a whole result for one detail: an ok response without its optional
// session is an accepted call whose state is unknown (session.go), and
// timestamps are read in every ISO 8601 form the spec allows, an unreadable
// secondary one (refund and token times) being dropped rather than failing
// the response (timestamp.go).
package payapi
