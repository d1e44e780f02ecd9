// Package sessionstate turns what the connector learns about a payment
// session (an API response, a signed webhook, a status poll) into the one
// normalized, masked snapshot published on the sessions topic. The order of
// two snapshots of one session (codec.SessionVersion, codec.Newer) is the
// codec's, beside the outcome model, so that connector/kit orders sessions
// as the connector does without the API client.
//
// It sits between the API model (internal/payapi) and the outcome model
// (internal/codec): the command pipeline, the webhook ingress and the
// reconciler all call FromAPI and propose the snapshot as an update; the
// session writer (connector/sessionwriter) compares versions and writes
// only newer snapshots.
package sessionstate
