// Package paysim is the sandbox: a simulator of the whole Payment Session
// Service (spec: payment-session-api.md) that sits where the real service
// sits in the data path — behind the connector's API client and in front of
// its webhook ingress.
//
// It serves every endpoint under /api/v1 and /api/v2 with the JSON envelope
// and error codes of the spec, verifies each request's RSA signature against
// the partner project's public keys, keeps idempotency keys for 24 hours,
// walks sessions through the state table (3-D Secure, confirmation, hold and
// capture, refunds, chargebacks, FPS verification, recurring tokens), and
// sends webhooks signed with the service key, retried at growing intervals.
// All lifetimes run on an injectable clock; tests advance it instead of
// sleeping and await background work with WaitIdle.
//
// The package has its own wire types and imports only the standard library
// and internal/signing: it never imports the API client, so a naming mistake
// on either side shows up in the contract suite (integration/apicontract).
package paysim
