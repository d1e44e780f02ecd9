// Package sessionstate turns what the connector learns about a payment
// session (an API response, a signed webhook, a status poll) into the one
// normalized, masked snapshot published on the sessions topic, and keeps
// that topic monotonic per session.
//
// It sits between the API model (internal/payapi) and the outcome model
// (internal/codec): the command pipeline, the webhook ingress and the
// reconciler all call FromAPI, then ask a Tracker whether the snapshot is
// newer than the last one they published for that session.
package sessionstate
