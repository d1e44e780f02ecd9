package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func TestBrokerConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  BrokerConfig
		want []string // fields named in the error; none means valid
	}{
		{name: "minimal", cfg: BrokerConfig{Dir: "/tmp/x"}},
		{name: "missing dir", cfg: BrokerConfig{}, want: []string{"Dir"}},
		{name: "every problem at once",
			cfg:  BrokerConfig{StartTimeout: -1, StopTimeout: -1, Heap: "512 m", InitialHeap: "1 g"},
			want: []string{"Dir", "StartTimeout", "StopTimeout", "invalid Heap", "invalid InitialHeap"}},
		{name: "joins a broker with its node id", cfg: BrokerConfig{Dir: "/tmp/x", NodeID: 1, Join: &Broker{cfg: BrokerConfig{NodeID: 1}}},
			want: []string{"NodeID 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want an error naming %v", tt.want)
			}
			for _, field := range tt.want {
				if !strings.Contains(err.Error(), field) {
					t.Errorf("Validate() = %q, does not name %s", err, field)
				}
			}
		})
	}
}

func TestJVMArgsSizeTheHeap(t *testing.T) {
	tests := []struct {
		name string
		cfg  BrokerConfig
		want []string
		not  string
	}{
		{name: "test-sized by default", cfg: BrokerConfig{Dir: "/d"}, want: []string{"-Xms128m", "-Xmx512m"}},
		{name: "a fixed heap", cfg: BrokerConfig{Dir: "/d", Heap: "1g", InitialHeap: "1g"}, want: []string{"-Xms1g", "-Xmx1g"},
			not: "-Xms128m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.setDefaults()
			args := (&Broker{cfg: tt.cfg}).jvmArgs()
			for _, w := range tt.want {
				if !slices.Contains(args, w) {
					t.Errorf("jvmArgs() = %q, missing %s", args, w)
				}
			}
			if tt.not != "" && slices.Contains(args, tt.not) {
				t.Errorf("jvmArgs() = %q, has %s", args, tt.not)
			}
		})
	}
}

func TestBrokerPropertiesAreTestSized(t *testing.T) {
	p := brokerProperties("/d", 9092, 9093, map[string]string{"num.partitions": "3"})
	want := map[string]string{
		"listeners":                                "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093",
		"controller.quorum.voters":                 "1@127.0.0.1:9093",
		"log.dirs":                                 "/d/data",
		"offsets.topic.replication.factor":         "1",
		"transaction.state.log.replication.factor": "1",
		"transaction.state.log.min.isr":            "1",
		"min.insync.replicas":                      "1",
		"group.initial.rebalance.delay.ms":         "0",
		"auto.create.topics.enable":                "false",
		"num.partitions":                           "3", // overridden
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s = %q, want %q", k, p[k], v)
		}
	}
}

func TestWritePropertiesIsStable(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	props := brokerProperties(dir, 1, 2, nil)
	if err := writeProperties(a, props); err != nil {
		t.Fatal(err)
	}
	if err := writeProperties(b, props); err != nil {
		t.Fatal(err)
	}
	ab, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if string(ab) != string(bb) {
		t.Fatal("two writes of the same properties differ")
	}
}

func TestClusterIDIsKafkaUUID(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_-]{21}$`)
	for range 100 {
		id, err := NewClusterID()
		if err != nil {
			t.Fatal(err)
		}
		if !re.MatchString(id) {
			t.Fatalf("NewClusterID() = %q, want 22 base64url characters not starting with '-'", id)
		}
	}
}

func TestStartBrokerFailureCarriesLogTail(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a JVM: skipped in -short mode")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	b, err := StartBroker(ctx, BrokerConfig{Dir: dir, JVMArgs: []string{"-XX:+NoSuchOptionForTheHarnessTest"}})
	if err == nil {
		_ = b.Stop()
		t.Fatal("StartBroker with a bad JVM flag succeeded")
	}
	for _, want := range []string{"exited before it was ready", "NoSuchOptionForTheHarnessTest", "broker.log"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q:\n%v", want, err)
		}
	}
	if pid := processWithArg(dir); pid != 0 {
		t.Errorf("process %d of the failed broker still running", pid)
	}
}

// processWithArg returns the pid of a live process whose command line mentions arg, 0 if none.
func processWithArg(arg string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), arg) {
			continue
		}
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err == nil && ProcessAlive(pid) {
			return pid
		}
	}
	return 0
}

// TestJoinedBrokerHoldsReplicas starts a second broker joined to a first: metadata lists both
// nodes, and a topic with two replicas is written with acks=all, so the followers are in sync.
func TestJoinedBrokerHoldsReplicas(t *testing.T) {
	first := StartTestBroker(t, nil)
	JoinTestBroker(t, first, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(first.Addr()), kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	md, err := adm.BrokerMetadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ids := md.Brokers.NodeIDs(); !slices.Equal(ids, []int32{1, 2}) {
		t.Fatalf("metadata lists nodes %v, want [1 2]", ids)
	}
	resp, err := adm.CreateTopic(ctx, 1, 2, map[string]*string{"min.insync.replicas": kadm.StringPtr("2")}, "two-replicas")
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("create a topic with two replicas: %v", err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "two-replicas", Value: []byte("x")}).FirstErr(); err != nil {
		t.Fatalf("produce with acks=all to two replicas, min.insync.replicas=2: %v", err)
	}
}
