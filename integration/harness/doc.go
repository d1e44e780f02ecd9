// Package harness gives integration tests the real processes they run against, starting with an
// Apache Kafka broker.
//
// It sits beside the data path, not in it: tests of the pipeline, the webhook ingress and the
// publishers get their broker here, produce commands into it and read outcomes back out.
//
// The broker is a plain Java process (no container engine is needed or used): a single-node KRaft
// broker+controller on free loopback ports, started from broker jars that Maven fetches once into
// the ignored cache folder .cache/kafka/libs. The chaos suite's 3-node cluster runs in containers
// instead, through testcontainers-go: see the subpackage cluster (make chaos).
//
//   - [Kafka] gives a test the bootstrap addresses of a broker: KAFKA_BROKERS when set (make test
//     sets it), otherwise one local broker shared by the whole test binary ([Shutdown] or [Main]
//     stops it).
//   - [Topic] creates a uniquely named topic that is deleted when the test ends.
//   - [Sandbox] starts an in-process sandbox and gives the variables that point a connector at
//     it, on fresh topics; the subpackage inproc starts the connector itself in the test's
//     process, with test timings, for every suite that does so.
//   - [StartBroker] / [StartTestBroker] start a private broker that a fault test may [Broker.Kill]
//     and [Broker.Restart] on the same data directory and ports.
//
// The kafkad command (integration/harness/kafkad) wraps the same launcher for make kafka-up and
// make kafka-down.
package harness
