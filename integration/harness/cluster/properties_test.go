package cluster

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

func TestEnvName(t *testing.T) {
	for p, want := range map[string]string{
		"node.id":                       "KAFKA_NODE_ID",
		"transaction.state.log.min.isr": "KAFKA_TRANSACTION_STATE_LOG_MIN_ISR",
		"listener.name.internal.ssl_x":  "KAFKA_LISTENER_NAME_INTERNAL_SSL__X",
		"log.flush-interval":            "KAFKA_LOG_FLUSH___INTERVAL",
	} {
		if got := envName(p); got != want {
			t.Errorf("envName(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestNodeProperties(t *testing.T) {
	p := nodeProperties(2, 3, 40123, map[string]string{"num.io.threads": "8"})
	for k, want := range map[string]string{
		"node.id":                       "2",
		"controller.quorum.voters":      "1@node1:9093,2@node2:9093,3@node3:9093",
		"advertised.listeners":          "INTERNAL://node2:9092,EXTERNAL://127.0.0.1:40123",
		"default.replication.factor":    "3",
		"min.insync.replicas":           "2",
		"transaction.state.log.min.isr": "2",
		"num.io.threads":                "8",
	} {
		if p[k] != want {
			t.Errorf("%s = %q, want %q", k, p[k], want)
		}
	}
	one := nodeProperties(1, 1, 40124, nil)
	if one["default.replication.factor"] != "1" || one["min.insync.replicas"] != "1" {
		t.Errorf("a one-node cluster must ask for 1 replica: %v", one)
	}
}

// TestKafkaVersionIsThePoms: the image's version is the version of the jars the harness fetches.
func TestKafkaVersionIsThePoms(t *testing.T) {
	pom, err := os.ReadFile(filepath.Join("..", "..", "kafka", "pom.xml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<kafka.version>([^<]+)</kafka.version>`).FindSubmatch(pom)
	if m == nil || string(m[1]) != KafkaVersion {
		t.Fatalf("integration/kafka/pom.xml's kafka.version %q, KafkaVersion %q", m, KafkaVersion)
	}
}
