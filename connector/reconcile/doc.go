// Package reconcile keeps every session moving when webhooks do not arrive:
// sessions that are not settled (see Settled: a final status and no
// operation or refund in progress) and have been quiet longer than
// QuietAfter are polled with session/status (with backoff) and their new
// state is proposed to the session writer (source poll). It also applies the confirmation
// policy to sessions waiting for session/confirm and surfaces the
// 240-minute confirmation deadline before it expires. An automatic
// confirmation is decided on a session/status read just before it, never
// on a state read from the topic, and is sent under a key naming the
// session and the operations it confirms: each operation of a session is
// confirmed once, whichever replica or restart sends it.
//
// Projects: a session lives in one partner project, and session/status
// finds it only under that project. The reconciler calls under the project
// a state of the session names (SessionState.Project: the pipeline's from
// its command, the webhook ingress's from the path the webhook arrived at),
// and keeps it when a newer state names none; the states it proposes name
// it. A session no state names a project of is the default project's.
//
// Data path: sessions topic (compacted, key = session id) → pending set →
// session/status → session-updates topic → the session writer, which writes
// the state to the sessions topic when it is newer (connector/sessionwriter).
//
// Sessions are not polled for ever: one that has not settled MaxAge (72 h by
// default) after its creation is published once more, unchanged, with the
// stale marker (header paysession-warning: stale, and paysession-age-from)
// and is no longer polled; the marker on the topic keeps it so across
// restarts and rebalances. Consumers that alert on it find the session's
// last known state in the record.
//
// Restarts and replicas: the pending set is not stored anywhere; it is
// derived from the sessions topic itself. Every replica joins one consumer
// group (Group) on that topic and never commits offsets. On every
// assignment (start, restart, rebalance) a replica reads each partition it
// is assigned from its first record stamped at or after the horizon's
// start, Now minus Horizon (7 days by default) minus
// codec.ClockAllowance, taken at that assignment, not from the
// beginning; a partition with no such record is read from its end. It
// holds the latest state of the unsettled sessions of what it read: the
// pending set is partitioned like the topic and each session is polled by
// one replica. On a rebalance a replica drops the sessions of revoked
// partitions and rebuilds the ones it gains by re-reading them, so after a
// restart or a crash nothing within the horizon is lost, only re-read; Ready
// reports when that read reached the end offsets of the assignment.
//
// The horizon keeps the cost following recent activity, not history
// (compaction keeps one record per session for ever): about once a minute
// a replica forgets the sessions whose last record (the latest stamped of
// the records of the session read or published) is older than the
// horizon's start, stale-marked ones included, so one that runs for weeks
// holds what a fresh start would read. A session whose last record is
// older than the horizon is no longer polled. With Horizon longer than
// MaxAge, which Validate requires, such a session is settled or marked
// stale by then, unless no reconciler ran for the whole horizon after its
// last record (the connector was down that long): then it is dropped
// unmarked, and its last state on the topic stays as it was.
package reconcile
