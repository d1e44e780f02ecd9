// Package codec sits at both ends of the connector's Kafka data path. On the
// way in it decodes command records (Confluent wire format, Avro single-object
// encoding or strict JSON, detected from the first byte) into the
// version-neutral command types and validates them; on the way out it encodes
// outcome records (command results, session states, webhook events, dead
// letters, wallet balances, FPS banks) as Avro, with the Confluent wire format
// when a schema registry is configured and single-object encoding otherwise.
//
// The Avro contract is the .avsc files of package schemas; the Go types here
// mirror them field for field and are round-trip tested against them. The
// codec knows nothing of HTTP or of the API client: the pipeline maps between
// these types and the client's model.
//
// # Adding a command kind
//
// A kind is one unit (kind.go). To add one:
//   - schemas/source/<kind>.avsc, and the symbol in the CommandKind enum of
//     schemas/source/types/CommandKind.avsc; go generate ./schemas, twice
//     (the first run writes the symbol into command_result.avsc, from which
//     package schemas learns the kind, the second composes <kind>.avsc);
//     schemas/history/<kind>/v1.avsc, a copy of <kind>.avsc. The enum has
//     no default, so consumers reading command_result with an older schema
//     cannot read the new symbol: TestSchemasCompatibleWithHistory says so,
//     and the release of command_result needs that decided;
//   - kind_<kind>.go here: copy the nearest kind's file;
//   - a row in connector/pipeline/mapping.go (for a new API method, also
//     its request in connector/pipeline/request.go and api.go, the client's
//     method in internal/payapi and the sandbox's in internal/paysim);
//   - then regenerate what lists the kinds: go generate ./internal/codec
//     ./internal/config ./connector/kit ./helm, and
//     go test ./integration -run TestSchemasReadmeNamesTheKinds -update.
//
// integration's TestEveryKindInEveryList names any list that misses a kind.
//
//go:generate go test -run Fingerprints -update .
package codec
