// Package logging builds the connector's structured logger: log/slog JSON or
// text output behind a redacting handler. Every log line of every part of the
// data path (pipeline, API client, webhook ingress, reconciler) passes through
// the redaction layer, which masks card numbers, PEM blocks and the values of
// sensitive attributes (security codes, passwords, secrets, keys, tokens)
// before anything is written. There is no package-level logger: New's result
// is passed in.
package logging
