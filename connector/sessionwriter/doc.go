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
//     written for its session (sessionstate.Newer: updated_at, then status
//     rank, then progress), or as new and marked for republishing (a
//     reconciler warning); an older one is dropped;
//   - a webhook event is written only when its event id was not written in
//     the last EventWindow, so a webhook delivered to two replicas, or
//     replayed after a restart, is on the topic once.
//
// So the sessions topic never goes backwards, by construction: only the
// owner of a partition writes it, and the owner knows the last state of
// every session of the partition. It learns it when it takes the partition
// over (a start, a rebalance, a restart): before it handles any update of
// partition p it reads partition p of the sessions topic from the start to
// its last stable offset (the topic is compacted: one record per session)
// and partition p of the webhook-events topic for the last EventWindow.
// The previous owner's last transaction has ended by then: the group's
// offset fetch waits for it (KIP-447, required stable offsets), and a
// fenced owner can no longer commit.
//
// The three topics must have the same number of partitions (the start-up
// topic check enforces it), and producers key updates by session id, so a
// session's updates, state and events share one partition number.
//
// Memory: the latest version of every session of the owned partitions (the
// compacted topic's size, about 100 bytes a session), while tracing is on
// the span context of every session's command (about 100 bytes more,
// trace.go), and the event ids of the last EventWindow.
package sessionwriter
