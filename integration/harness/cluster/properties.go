package cluster

import (
	"fmt"
	"maps"
	"strings"
)

// The ports every node listens on inside the cluster's network.
const (
	internalPort   = 9092 // broker to broker
	controllerPort = 9093 // KRaft quorum
	externalPort   = 9094 // clients on this machine, published on a loopback port
	dataPath       = "/var/lib/kafka/data"
)

// alias is node id's host name on the cluster's network.
func alias(id int) string { return fmt.Sprintf("node%d", id) }

// nodeProperties returns the server properties of node id of an n-node cluster whose client
// listener is published on hostPort: a combined broker+controller with the static voter set of
// all n nodes, replication factor min(3, n) and min.insync.replicas min(2, n) for topics and the
// internal topics, no automatic topic creation. extra overrides any of them.
func nodeProperties(id, n, hostPort int, extra map[string]string) map[string]string {
	voters := make([]string, n)
	for i := range n {
		voters[i] = fmt.Sprintf("%d@%s:%d", i+1, alias(i+1), controllerPort)
	}
	rf, isr := fmt.Sprint(min(3, n)), fmt.Sprint(min(2, n))
	p := map[string]string{
		"node.id":                                          fmt.Sprint(id),
		"process.roles":                                    "broker,controller",
		"controller.quorum.voters":                         strings.Join(voters, ","),
		"listeners":                                        fmt.Sprintf("INTERNAL://:%d,CONTROLLER://:%d,EXTERNAL://:%d", internalPort, controllerPort, externalPort),
		"advertised.listeners":                             fmt.Sprintf("INTERNAL://%s:%d,EXTERNAL://127.0.0.1:%d", alias(id), internalPort, hostPort),
		"listener.security.protocol.map":                   "INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT,EXTERNAL:PLAINTEXT",
		"controller.listener.names":                        "CONTROLLER",
		"inter.broker.listener.name":                       "INTERNAL",
		"log.dirs":                                         dataPath,
		"num.partitions":                                   "1",
		"default.replication.factor":                       rf,
		"min.insync.replicas":                              isr,
		"unclean.leader.election.enable":                   "false",
		"offsets.topic.replication.factor":                 rf,
		"offsets.topic.num.partitions":                     "10",
		"transaction.state.log.replication.factor":         rf,
		"transaction.state.log.min.isr":                    isr,
		"transaction.state.log.num.partitions":             "10",
		"share.coordinator.state.topic.replication.factor": rf,
		"share.coordinator.state.topic.min.isr":            isr,
		"group.initial.rebalance.delay.ms":                 "0",
		"auto.create.topics.enable":                        "false",
		"num.network.threads":                              "2",
		"num.io.threads":                                   "4",
	}
	maps.Copy(p, extra)
	return p
}

// envName is the variable that sets property p in the official image's convention (and the local
// image's entrypoint): KAFKA_ and the property upper-cased, '_' written '__', '-' written '___'
// and '.' written '_'.
func envName(p string) string {
	r := strings.NewReplacer("_", "__", "-", "___", ".", "_")
	return "KAFKA_" + strings.ToUpper(r.Replace(p))
}

// nodeEnv returns the variables of a node container: the properties, the cluster id and the heap.
func nodeEnv(props map[string]string, clusterID, heap string) map[string]string {
	env := map[string]string{"CLUSTER_ID": clusterID, "KAFKA_HEAP_OPTS": "-Xmx" + heap + " -Xms128m"}
	for k, v := range props {
		env[envName(k)] = v
	}
	return env
}
