// Package examples runs the downstream examples against the real broker and
// a connector, as a team integrating with the connector would: the Go ledger
// in its own module (ledger-go, importing connector/kit through a replace
// directive), the Java consumer (java/, Maven dependencies: Apache Avro's
// BinaryMessageDecoder and Apicurio Registry's serde), the Python producer and
// consumer (python/, confluent-kafka and fastavro), `connector produce` and
// `connector tail`, and the AsyncAPI document of schemas/ through the
// official AsyncAPI parser (asyncapi/, npm).
//
// It sits at the far end of the data path, where the ledger and
// notification teams read. Downloads (Maven jars, the Python virtualenv,
// node modules) are cached under .cache/examples and refreshed when the
// pom, requirements or lockfile change.
package examples
