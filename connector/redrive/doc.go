// Package redrive re-publishes dead letters to their source topics (the
// connector's redrive subcommand), once each, after their cause is fixed.
//
// A dead letter holds only a protected copy of its command (card data
// masked), so Run reads each original record back from its source topic,
// partition and offset (source.go: a direct read_committed consume of that
// offset, the key verified) and re-publishes its key, value and headers with
// the original record time in the paysession-record-time header, which the
// pipeline's key-lifetime guard honours (internal/header.OriginalTime). When
// the source record is gone (retention) the dead letter's own bytes are used
// only if they are the original; otherwise the dead letter is skipped,
// logged and named (topic/partition/offset) in the returned *Error. Each
// batch of dead letters is one transaction with the redrive group's offsets,
// so every dead letter is handled once; a run handles the dead letters
// present when it starts (scope.go).
package redrive
