package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ChaosEnv opts a test binary into starting containers; make chaos sets it. Without it the
// tests that need Docker skip, so make test needs no container engine.
const ChaosEnv = "CHAOS"

func requireChaos(t *testing.T) {
	t.Helper()
	if testing.Short() || os.Getenv(ChaosEnv) != "1" {
		t.Skipf("needs Docker: run by make chaos (%s=1)", ChaosEnv)
	}
}

// TestClusterFaults starts a 3-node cluster and drives every fault once, checking after each
// that a transactional produce commits again (acks=all, min.insync.replicas=2) and that the
// replicas come back in sync; last, Cut: one node's container cut from another reaches the third
// but not that one until healed.
func TestClusterFaults(t *testing.T) {
	requireChaos(t)
	start := time.Now()
	c := StartTest(t, Config{})
	t.Logf("3 nodes up in %v: %v (run %s)", time.Since(start).Round(time.Millisecond), c.Brokers(), c.RunID())
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	newClient := func() *kgo.Client {
		cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.TransactionalID("cluster-test"),
			kgo.DefaultProduceTopic("cluster-test"), kgo.RequestRetries(100))
		if err != nil {
			t.Fatal(err)
		}
		return cl
	}
	cl := newClient()
	defer func() { cl.Close() }()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 3, -1, nil, "cluster-test"); err != nil {
		t.Fatal(err)
	}
	details, err := adm.DescribeTopicConfigs(ctx, "cluster-test")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range details {
		for _, cfg := range d.Configs {
			if cfg.Key == "min.insync.replicas" && (cfg.Value == nil || *cfg.Value != "2") {
				t.Fatalf("min.insync.replicas %v, want 2", cfg.Value)
			}
		}
	}
	// try runs one transaction of one record.
	try := func(what string) error {
		if err := cl.BeginTransaction(); err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(what)}).FirstErr(); err != nil {
			_ = cl.EndTransaction(ctx, kgo.TryAbort)
			return fmt.Errorf("produce: %w", err)
		}
		if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		return nil
	}
	// commit commits a transaction. During a fault a request to the frozen or cut node may time
	// out (the client does not retry an EndTxn whose answer it lost); a new producer of the same
	// transactional id (fencing the old one, aborting its transaction) then tries again, as the
	// connector rebuilds its session.
	commit := func(what string, inSync bool) {
		t.Helper()
		begun := time.Now()
		for attempt := 1; ; attempt++ {
			err := try(what)
			if err == nil {
				break
			}
			if attempt == 3 {
				t.Fatalf("%s: %v (attempt %d)", what, err, attempt)
			}
			t.Logf("%s: %v; a new producer tries again", what, err)
			cl.Close()
			cl = newClient()
		}
		if !inSync {
			t.Logf("%s: committed after %v", what, time.Since(begun).Round(time.Millisecond))
			return
		}
		if err := c.AwaitInSync(ctx); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%s: committed and in sync after %v", what, time.Since(begun).Round(time.Millisecond))
	}
	commit("fresh cluster", true)
	steps := []struct {
		name       string
		fault, fix func(context.Context) error
	}{
		{"kill and start node 1", c.Node(1).Kill, c.Node(1).Start},
		{"pause and unpause node 2", c.Node(2).Pause, c.Node(2).Unpause},
		{"disconnect and reconnect node 3", c.Node(3).Disconnect, c.Node(3).Reconnect},
	}
	for _, s := range steps {
		if err := s.fault(ctx); err != nil {
			t.Fatal(err)
		}
		commit(s.name+" (during)", false)
		if err := s.fix(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.AwaitReady(ctx); err != nil {
			t.Fatal(err)
		}
		commit(s.name+" (after)", true)
	}
	if !c.Node(1).Running(ctx) {
		t.Fatal("node 1 does not run after its restart")
	}

	// Cut: node 1's container cut from node 2 reaches node 3 but not node 2, until healed.
	heal, err := c.Cut(ctx, c.Node(1).Name(), c.Node(2))
	if err != nil {
		t.Fatal(err)
	}
	if err := dial(ctx, c.Node(1), c.Node(2)); err == nil {
		t.Error("node 1 reached node 2 through the cut")
	}
	if err := dial(ctx, c.Node(1), c.Node(3)); err != nil {
		t.Errorf("node 1 cut from node 2 does not reach node 3: %v", err)
	}
	if err := heal(ctx); err != nil {
		t.Fatal(err)
	}
	if err := dial(ctx, c.Node(1), c.Node(2)); err != nil {
		t.Errorf("node 1 does not reach node 2 after the heal: %v", err)
	}
	commit("cut node 1 from node 2 and heal", true)
}

// dial opens a TCP connection from inside from's container to to's broker port (bash's
// /dev/tcp), giving up after 3 seconds.
func dial(ctx context.Context, from, to *Node) error {
	ip, err := to.IP(ctx)
	if err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, "docker", "exec", from.Name(), "timeout", "3", "bash", "-c",
		fmt.Sprintf("exec 3<>/dev/tcp/%s/%d", ip, internalPort)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	return nil
}
