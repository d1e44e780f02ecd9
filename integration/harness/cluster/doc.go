// Package cluster is the harness backend of the chaos suite: an N-node Apache Kafka cluster in
// containers, started with testcontainers-go, on which a test injects production faults.
//
// Every node is a combined broker+controller (KRaft, static voters) on a user-defined network
// created for the cluster; the cluster keeps replication factor 3 (at most the node count) and
// min.insync.replicas=2 for every topic and internal topic. Each node keeps its data on a named
// volume and publishes its client listener on a fixed loopback port, so a node killed and started
// again comes back with its data and its address.
//
//   - [Start] / [StartTest] start the cluster; [Cluster.Brokers] are the bootstrap addresses for
//     clients on this machine; [Cluster.Close] removes every container, the network and the
//     volumes (StartTest does it when the test ends, also when it fails).
//   - [Cluster.AwaitReady] waits until every node answers for itself (after a fault: the cluster is
//     whole again); [Cluster.AwaitInSync] until every partition has all its replicas in sync.
//   - [Node.Kill] (SIGKILL) and [Node.Start]; [Node.Stop] (SIGTERM, a graceful shutdown);
//     [Node.Pause] and [Node.Unpause] (the node freezes, as in a long GC pause or a VM stall);
//     [Node.Disconnect] and [Node.Reconnect] (the node is partitioned from the other nodes and
//     from the clients).
//
// The package lives in the main module (not a module of its own under integration/): the
// testcontainers-go dependency is reached only from this package and the test binaries that
// import it, so the connector's binaries and its packages' import graph do not change.
//
// The image is [Image]: the local image built by the kafkaimage command (make chaos builds it
// once), or any image of the same configuration convention named by $CHAOS_KAFKA_IMAGE, such as
// the official apache/kafka image of [KafkaVersion] where it can be pulled. Nodes are configured
// only through KAFKA_* variables and CLUSTER_ID, the convention of the official image.
//
// testcontainers-go must stay on this machine: [CheckEnvironment] refuses to start without
// TESTCONTAINERS_HOST_OVERRIDE naming a loopback address (without it testcontainers may dial an
// address outside the machine) and without TESTCONTAINERS_RYUK_DISABLED=true (the reaper image
// cannot be pulled; the cluster removes its own containers, network and volumes instead). Every
// container, network and volume carries the label [Label], so that make chaos removes what a
// killed test binary left behind.
package cluster
