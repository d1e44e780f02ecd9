// Package kit is the public Go interface to the paysession connector's Kafka
// topics, for the systems at both ends of its data path: producers of
// commands (orders, payroll) and consumers of outcomes (ledger,
// notifications). Another Go module imports it; the packages it builds on
// (internal/codec, connector/sessionstate) are the connector's own, so what
// this package writes and reads is byte for byte what the connector reads
// and writes.
//
//   - [Encoder] builds the value of any command in each wire format the
//     connector accepts: strict JSON, Avro single-object encoding, or the
//     Confluent wire format with a schema registry. [Encoder.Record] also sets
//     the key (the idempotency key) and the kind's default topic.
//   - [Decoder] reads any outcome record (command result, session state,
//     webhook event, dead letter, wallet balance, FPS banks) into its typed
//     value, in either Avro form; with a registry it resolves writer schemas
//     by id.
//   - [Latest] keeps the newest state per session by the connector's own
//     rule (updated_at, then status rank, then progress of operations:
//     sessionstate.Newer), so a consumer never moves a session backwards
//     whatever order records arrive in.
//   - [Seen] remembers webhook event ids, so a webhook delivered twice is
//     acted on once.
//
// Consumers read the outcome topics with isolation level read_committed:
// the command pipeline writes them in Kafka transactions. The topics, keys,
// headers and schemas are described in schemas/asyncapi.yaml (AsyncAPI 3.0),
// which a test keeps in agreement with [DefaultTopics] and the header
// constants of this package.
package kit
