// Package paysim is the sandbox: a simulator of the whole Payment Session
// Service (spec: payment-session-api.md) that sits where the real service
// sits in the data path — behind the connector's API client and in front of
// its webhook ingress.
//
// It serves every endpoint under /api/v1 and /api/v2 (v1-only methods only
// under /api/v1) with the JSON envelope and error codes of the spec,
// verifies each request's RSA signature over the raw body against the
// partner project's public keys, keeps idempotency keys for 24 hours, walks
// sessions through the state table (3-D Secure, confirmation, hold and
// capture, refunds, chargebacks, FPS verification, recurring tokens), and
// sends webhooks signed with the service key, retried at growing intervals.
// All lifetimes run on an injectable clock; tests advance it instead of
// sleeping and await background work with WaitIdle.
//
// Test cards (outcomes never depend on amounts or faults): 4111111111111111
// succeeds; 4000000000000002 is declined (operation canceled);
// 4000000000003220 needs 3-D Secure with a GET redirect, 4000000000003063
// with a POST redirect carrying PaReq, MD and TermUrl (payments);
// 5555555555554444 holds
// (payments, ready_to_capture); 4000000000000259 waits for session/confirm.
// FPS phones: 79000000000 found, 79999999999 not found. Payouts wait for
// confirmation when the project has no auto-confirm or the amount is at
// least its ConfirmAbove.
//
// Choices where the spec says "not shown" are documented where they are
// made, and listed in this package's README.md: HTTP statuses (auth.go,
// errors.go), the rule vocabulary of
// invalid_request descriptions (validate.go), methods without idempotency
// keys (api.go), the webhook schedule (webhooks.go), admin endpoints
// (admin.go), memory bounds (retention.go).
//
// The package has its own wire types and imports only the standard library
// and internal/signing: it never imports the API client, so a naming mistake
// on either side shows up in the contract suite (integration/apicontract).
package paysim
