// Package topics checks the Kafka topics the connector is configured to use,
// at start and when a produce fails at run time: the "Topics are verified"
// contract of ARCHITECTURE.md.
//
// It sits beside the engine: cmd/connector (or the connector's wiring) calls
// Verify with every configured topic before starting any part, refuses to
// start on Report.Err, and logs Report.Warnings. The pipeline sizes what it
// writes with Report.MaxMessageBytes and Report.Fits (a dead letter that
// would not fit is written without its value), caps its producer's batches
// with Report.BatchMaxBytes, and classifies produce errors with Classify.
//
// The same package provisions them: NewPlan turns the Wants and an
// operator's Settings (partitions, replication, min.insync.replicas, sizes,
// retention) into a Plan, Apply creates through the admin API the planned
// topics a Report found missing, and Plan.Differences names every setting of
// an existing topic that differs from the plan, beside what Report.Err
// already names (`connector topics plan|apply|verify`).
//
// # Fatal at start (Report.Err)
//
//   - A configured topic does not exist (every one is named, not the first).
//   - A topic cannot be described: the principal lacks DESCRIBE on it
//     (implied by READ and WRITE, so the connector could not use it either).
//   - A topic wanted compacted (payments.sessions, an attempts topic) whose
//     cleanup.policy does not include compact: the latest state per key
//     would be deleted by age.
//   - A written topic whose min.insync.replicas exceeds its replication
//     factor: every acks=all write fails.
//   - A results topic whose max.message.bytes is below
//     MinResultsMessageBytes (64 KiB): a result might not fit even with its
//     description withheld, and a command would end without one.
//
// # Warnings (Report.Warnings): logged, the connector runs
//
//   - Replication factor 1 (on any cluster: a lost disk loses records).
//   - min.insync.replicas 1 on a written topic with more replicas: once
//     followers fall behind, the leader alone acknowledges a write.
//   - unclean.leader.election.enable=true on a written topic.
//   - retention.ms below MinRedriveRetention (7 days) on the retry and
//     dead-letter topics, whose records wait for an operator or a resume.
//   - cleanup.policy "compact,delete" with a finite retention.ms on a topic
//     wanted compacted: quiet keys are deleted.
//   - A retry or dead-letter topic whose max.message.bytes is below a command
//     topic's: larger commands cannot be copied to it whole.
//   - Partitions without a leader (usually passing).
//   - Configuration not readable: the principal lacks DESCRIBE_CONFIGS (not
//     implied by READ or WRITE). Compaction, sizes and retention are then
//     unchecked, and MaxMessageBytes falls back to DefaultMaxMessageBytes.
//
// # What Verify cannot see
//
// Verify does not read ACLs (DescribeAcls needs cluster rights a connector
// should not have), so a topic the principal may describe but not write
// passes: the first transaction fails with TOPIC_AUTHORIZATION_FAILED, which
// Classify reports as TopicUnavailable, and the runtime handling of issue 13
// item 2 (stop new work, fail readiness naming the topic, rebuild the client,
// recover) covers it, as it covers a topic deleted after the start. Nor does
// Verify see broker-side policies (PolicyViolation) or quotas, or a topic's
// settings changing after the start.
package topics
