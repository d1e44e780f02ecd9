// Package sessionwriter is the one writer of the sessions topic and of the
// webhook-events topic.
//
// Three parts of the connector learn about a payment session: the command
// pipeline (an API answer), the webhook ingress (a signed webhook) and the
// reconciler (a session/status poll). None of them writes the sessions
// topic. Each proposes what it learned as an update: a session-state record
// on the session-updates topic, keyed by session id (the ingress adds the
// webhook's event id and type as headers). This package consumes that topic
// in its own consumer group and, for each partition p it owns, writes
// partition p of the sessions topic and of the webhook-events topic inside
// one Kafka transaction that also commits the updates it read (at most one
// transaction per CommitInterval: the updates that arrive meanwhile share
// the next one):
//
//   - a session state is written only when it is newer than the last state
//     written for its session (codec.Newer: updated_at, then status
//     rank, then progress), or as new and marked for republishing (a
//     reconciler warning); an older one is dropped;
//   - a webhook event is written only when its event id was not written in
//     the last EventWindow, so a webhook delivered to two replicas, or
//     replayed after a restart, is on the topic once; and one updated
//     before the window (less the clock allowance) only when its state is
//     newer than the session's last, so a replay of any age writes no
//     event (derive.go, replayed).
//
// The writer also answers the webhook ingress's local lookup
// (SessionProject, known.go): whether it holds a session, and the project
// its states name.
//
// So the sessions topic never goes backwards, by construction: only the
// owner of a partition writes it, and the owner knows the last state of
// every session of the partition that it may still be sent. It learns it
// when it takes the partition over (a start, a rebalance, a restart):
// before it handles any update of partition p it reads partition p of the
// sessions topic from the first record of the horizon (Kafka's time index
// gives its offset) to its last stable offset, and partition p of the
// webhook-events topic for the last EventWindow. The previous owner's last
// transaction has ended by then: the group's offset fetch waits for it
// (KIP-447, required stable offsets), and a fenced owner can no longer
// commit.
//
// The horizon (Config.Horizon, default 7 days; see internal/codec's
// session_horizon.go) bounds what the writer keeps: a session whose last state was
// written longer ago than the horizon plus an hour is forgotten, in memory
// as at a takeover. A state of a session not remembered is written when its
// updated_at is within the horizon (a chargeback weeks later) and dropped
// as stale when older; a webhook whose state was updated before the
// horizon is a replay and writes no event. Within the horizon the rule
// above holds exactly; beyond it, a session's last state on the topic is
// never older than one written before, provided the service's clock runs
// at most an hour ahead of the connector's.
//
// The three topics must have the same number of partitions (the start-up
// topic check enforces it), and producers key updates by session id, so a
// session's updates, state and events share one partition number.
//
// Memory: per session written within the horizon, about 73 bytes (a stamp,
// a write time and a project reference, sessions.go; BenchmarkSessionMemory), and while tracing
// is on the span context of its command (about 100 bytes more, trace.go);
// per event id of the last EventWindow about 70 bytes. A sweep deletes what
// fell out of either at most once a minute.
package sessionwriter
