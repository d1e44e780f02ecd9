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
// logged and named (topic/partition/offset) in the returned *Error.
//
// A run never passes over a letter it did not redrive. It joins no consumer
// group and commits no offset: it reads the dead-letter topic by explicit
// offsets, from each partition's start to the last letter present when it
// started (letters.go, scope.go), so a letter its Filter does not select
// stays for the next run. What is done is recorded beside the letters: each
// redriven letter gets a redrive marker on the dead-letter topic in the same
// transaction as its re-published command (marker.go), and a run leaves the
// letters a marker names. A run first fences the earlier runs of its
// transactional id, so the markers it reads are all there are. A command
// carries its redrive count (header.RedriveCount) through the pipeline to
// its next dead letter, and a letter redriven Config.MaxRedrives times is
// skipped, so a command that keeps failing cannot loop.
package redrive
