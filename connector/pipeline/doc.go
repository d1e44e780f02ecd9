// Package pipeline is the command pipeline: the part of the connector that
// turns command records on Kafka into calls of the Payment Session Service and
// publishes exactly one result per command, atomically with the consumer
// offsets.
//
// Data path, one command (process):
//
//	key-lifetime guard (age = now − the earliest of record time, first
//	attempt and first seen, older than KeyLifetimeMargin ⇒ never sent) →
//	decode (Confluent / single-object Avro / strict JSON by first byte) →
//	validate (key 4..64 printable ASCII and no card number, fields) → call
//	the API with the record key as X-PARTNER-IDEMPOTENCY-KEY (retryable
//	errors retried with exponential backoff, full jitter, Retry-After
//	honoured up to Retry.Max, under a budget) → classify (accepted /
//	rejected / expired / invalid / indeterminate) → outcome records.
//
// "Not sent" is proven (attempts.go): before a batch's calls start, a mark
// on the compacted attempts topic covers every offset the batch may call.
// An expired command is "expired, not sent" only if its offset lies past the
// mark read when its partition was taken over; otherwise it is
// indeterminate, and one status query settles its session where it names
// one.
//
// Topics that cannot be written (writes.go): /readyz fails naming the topic
// at the first abort the topic itself caused; after WriteFailureThreshold
// consecutive aborts by one topic the pipeline stops polling and calling the
// API, waits for the topic in the metadata, and rebuilds its Kafka session.
// The final outcomes of a batch aborted by a write failure are kept
// (replay.go), so its redelivered commands are not executed again. A
// transaction still writing (produce to End) after BatchDeadline fails
// /readyz too, until it ends: a replica cut off from one broker gets no
// error, it just commits nothing.
//
// Sizes. Every record is sized by Config.Sizer (outbound.Sizer, the
// connector's one check of every record against its topic's limit): a
// result without its error description, a dead letter without the value,
// then the headers, a session update without its operations' metadata, or
// not written at all (counted, logged); a retry record (headers only) that
// would not fit the retry topic gets a final record_too_large result; an
// invalid key is never an outcome key (codec.OutcomeKeyAt: the record's
// position). So every record ends as one result, whatever its size, and
// no record makes the transaction abort. A changed limit rebuilds the
// Kafka session between two transactions (limits.go).
//
// Transactions. One kafka.TxnSession (read_committed, transactional id from
// configuration) consumes every command topic and the retry topic; it is
// kgo.GroupTransactSession's protocol without the Heartbeat that End forces
// before EndTxn, which KIP-447 makes redundant (internal/kafka/txnsession.go).
// Each batch of at most MaxPollRecords records, taken in turn from the
// partitions of everything fetched (held.go), is one Kafka
// transaction: its calls → Begin → produce its outcome records → End. The
// batches overlap (transact.go, ahead.go): once a batch's outcomes are
// produced, the records already fetched are polled ahead as the next batch, whose attempt
// marks and API calls run while this transaction ends; its first produce
// waits until the coordinator reports that transaction complete
// (settle.go), so the broker does not park it. Right after an End, the
// records fetched meanwhile are taken and held for the next batch, which
// makes the client request the ones that arrived after them at once
// (franz-go keeps one fetch per broker and asks for the next only once it
// is taken): a record arriving during an End waits for one transaction,
// not two. A transaction commits
// exactly the offsets of its own batch (offsets.go), so a batch is always
// finished before it ends: each record gets a result, or is moved to the
// retry topic inside the same transaction. A rebalance that revokes
// partitions cancels the running batch and the session aborts it; an abort
// also drops the batch polled ahead (its calls cancelled, nothing of it
// produced) and the records held, and rewinds every partition of them all
// to their first record, and
// they are redelivered. End can fail although the commit happened (franz-go
// issues 1052 and 1207): the pipeline then counts the transaction as
// unknown, logs it and rebuilds the session, which re-reads the committed
// offsets from the broker. Replays are safe because every command reuses its
// idempotency key, so the service never executes it twice, and consumers
// reading read_committed see only committed results.
//
// Concurrency and order. A batch is split into lanes: commands naming the
// same session id form one lane and run one after another in offset order;
// commands without a session (init, create, FPS verification, recurring
// token) run alone. Lanes run concurrently; at most Concurrency API calls are
// in flight (a semaphore, optionally a rate limit).
//
// One session's flood. A batch ends only when its longest lane does, and
// everything in it waits for that commit: 2,000 status refreshes of one
// session at 20 ms a call held an unrelated payout for 12.8 s. So a batch
// runs at most MaxPerSession commands of a lane (default 8); the lane's
// others in the batch are parked behind them, due at once (the batch still
// ends with a result or a retry record for each of its records, so its
// commit covers a prefix of every partition), and a batch takes at most
// MaxPerSession of a lane's retry records (held.go): the flood drains
// through the retry topic MaxPerSession a batch, in order (the parked set
// parks the session's fresh commands behind it), while the commands beside
// it, on its own partition too, run in the batch they came in. Stopping a
// partition's part of the batch at the first record past its session's cap
// instead would keep every command behind the flood on that partition
// waiting until the flood drained (and a fresh record's session is known
// only once it is read, after the batch is taken); the retry topic, whose
// records name their lane, is capped that way, so a parked command of
// another session behind a flood on the same retry partition waits for it.
// A command parked again while more of its session wait in the retry topic
// lands behind them there; the parked set then keeps the session's order
// itself (queue.go). The bound: a command waits for the batch running when
// it arrives, the one polled ahead and its own, each at most MaxPerSession
// commands of any session long (MaxPerSession × the API latency without
// retries; retries add their backoff, and BatchDeadline bounds a batch),
// plus each batch's marks, read-back and transaction end. Measured with the
// sandbox at 20 ms (integration/pipeline TestSessionFloodDelaysOthersByTheCap,
// 2,000 refreshes, BatchDeadline 3 s): a payment on another topic answered
// after 0.26 s (3.1 s before), a refresh of another session behind the
// flood on its partition after 0.50 s (9.1 s before); the flood drained in
// 48 s where its calls take 40 s.
//
// Batch deadline and the retry topic. A batch lasts at most BatchDeadline
// (well under the transaction timeout). A command still retrying at the
// deadline is cancelled and parked: a retry record names it by its source
// (topic, partition, offset, idempotency key) with its attempt count,
// next-attempt time, first-attempt time, whether a request may have been
// sent and the original record time, all in headers, and has no value: the
// command is read back from its source when the retry record comes due
// (parked.go), so the retry topic holds no card data. A command whose
// source is gone by then ends with a source_unavailable result. Later commands of its lane follow it there, so the
// lane's order is kept. Retry records are keyed by session id, so a session's
// parked commands share a partition and come back in order. Across batches,
// a set of parked commands per session makes a fresh command of a session
// with parked commands park behind them. The set changes only when a
// transaction commits, and it is rebuilt from the retry topic (the records
// past the group's committed offsets) when a session starts and after a
// rebalance, so the order also holds across restarts. With several instances
// a session's retry partition may belong to another instance; its fresh
// commands then still queue behind through the retry topic (one extra hop
// each, until the next rebalance rebuilds the set). A retry record that is
// not yet due within the batch is parked again and the retry topic is paused
// until it is due.
//
// Restarts. Give every instance a stable kgo.InstanceID (static membership)
// and a TransactionalID derived from it: a restarted instance then takes its
// partitions back at once, and initializing its producer id before joining
// fences the dead incarnation's open transaction instead of waiting for the
// transaction timeout.
//
// Ambiguity. A request that may have reached the service (Sent) and never
// got a final answer within the budget gives an indeterminate result, never
// a guess; when the command names a session, one status query publishes the
// session's actual state (source poll) beside it.
//
// Back-pressure. PauseAfterFailures consecutive retryable failures pause
// fetching of every topic; the pipeline probes the service every
// ProbeInterval (or the larger Retry-After, up to a minute) and resumes when
// it answers. A schema registry failure parks the command; after
// DecodeFailureBudget failures it is rejected and dead-lettered, never sent.
//
// Shutdown. When Run's context ends the pipeline stops polling, gives the
// open batch ShutdownGrace to finish, parks what is left, commits, leaves the
// group and returns. No result is committed for work not done.
//
// Dead letters. An undecodable or invalid command gets an invalid result and
// a record on the dead-letter topic with its origin (topic, partition,
// offset, key, headers, record time) and the error, but never with card
// data: the value is a protected copy. Card numbers (Luhn-valid runs of 12–19
// digits, also grouped by any single separator or JSON-escaped, in JSON
// strings and numbers or Avro strings) keep bin and last4 only and security
// codes (members named so in any spelling) become "***" (JSON is edited in
// place, Avro re-encoded with its writer schema); a value that cannot be read
// reliably (undecodable Avro, unknown binary) is withheld (empty). The
// paysession-dlq-value header says which: original, masked or withheld.
//
// Once their cause is fixed, connector/redrive re-publishes dead letters to
// their source topics.
package pipeline
