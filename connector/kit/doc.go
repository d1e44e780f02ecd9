// Package kit is the public Go interface to the paysession connector's Kafka
// topics, for the systems at both ends of its data path: producers of
// commands (orders, payroll) and consumers of outcomes (ledger,
// notifications). Another Go module imports it; the packages it builds on
// (internal/codec and schemas) are the connector's own, so what
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
//     codec.Newer), so a consumer never moves a session backwards
//     whatever order records arrive in. Like the connector it remembers a
//     session only within a horizon ([LatestConfig]).
//   - [Seen] remembers webhook event ids, so a webhook delivered twice is
//     acted on once.
//
// # Memory of a Latest
//
// The sessions topic is compacted: read from the start, it holds the last
// state of every session ever made, so a Latest that kept them all would
// outgrow any memory. A Latest holds a session while the updated_at of its
// newest state is within the horizon (default 7 days, the connector's
// own) and at most MaxSessions of them, the oldest updated_at first to go.
// Within the horizon it guarantees what it always did: the state kept is
// the newest offered, and a state no newer is refused. Beyond it, a session
// is forgotten, and a state of it is kept only when its updated_at is
// within the horizon and later than every state let go of: an old record
// read late is refused as stale, a new state (a chargeback weeks later) is
// kept. Either way a session never moves backwards.
//
// Each session held costs about 1 KiB: 110 to 130 bytes of the Latest's
// own and about 900 of a decoded state with one operation (the states are
// the consumer's, held by pointer). Size a consumer thus:
//
//   - One that keeps up with the topic (a notification service, a ledger
//     whose books survive restarts): the defaults, NewLatest(); memory is
//     about 1 KiB × the sessions updated in 7 days at peak. Set
//     MaxSessions to what the memory limit allows as a ceiling, and a
//     longer Horizon if it may lag by days (a state new to it is refused
//     when the connector wrote it more than Horizon − lag after its
//     updated_at).
//   - One that builds its books from the start of the topic: Horizon
//     NoHorizon (states of any age are kept) and MaxSessions at least the
//     sessions updated in 7 days at peak, so that what it lets go of is
//     older than any state still to come out of order; memory is about
//     1 KiB × MaxSessions.
//
// Consumers read the outcome topics with isolation level read_committed:
// the command pipeline writes them in Kafka transactions. The topics, keys,
// headers and schemas are described in schemas/asyncapi.yaml (AsyncAPI 3.0),
// which a test keeps in agreement with [DefaultTopics] and the header
// constants of this package.
package kit
