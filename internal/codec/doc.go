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
package codec
