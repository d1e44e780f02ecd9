package faults_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/paysession/paysession/integration/harness/cluster"
	"github.com/paysession/paysession/internal/codec"
)

// TestChaos is the chaos suite of issue 39 (make chaos; CHAOS=1, skipped
// otherwise): the fault scenarios' rig and oracle on a 3-node KRaft cluster
// in containers (integration/harness/cluster: replication factor 3,
// min.insync.replicas=2), one fault at a time with recovery between, each
// while payouts flow at a steady rate to two connector replicas with the
// production timeouts (45 s session, 30 s transaction, 10 s batch
// deadline). The faults: every broker restarted in turn (SIGTERM, start,
// back in sync before the next); the transaction coordinator of replica
// 1's transactional id frozen (docker pause) for CHAOS_OUTAGE (30 s);
// that coordinator SIGKILLed and started again; two brokers killed for
// CHAOS_OUTAGE (min.insync.replicas cannot be met: the /readyz of a
// replica whose transactions failed must fail at some point); the
// coordinator disconnected from the network for CHAOS_OUTAGE; replica 2,
// run in a container built FROM scratch on the cluster's network, cut off
// (iptables in its network namespace) from the leader of a payout
// partition it consumes for CHAOS_OUTAGE (c6; its /readyz must fail if
// its transactions failed); the
// coordinator and replica 1 SIGKILLed together, both started again at
// once.
//
// Both replicas' /readyz is polled during every fault (the table counts
// the answers other than 200). Each scenario's row is the oracle's (nothing executed twice, no result
// missing or duplicate, webhooks published once, no card leak in any
// replica's log, the sessions topic's last state of every session equal
// to the sandbox's final one), and what
// the fault cost: the longest stall (no result committed, from the fault's
// start until every command was answered), the recovery (from the end of
// the fault — the broker up, unfrozen or reconnected — until every command
// produced before it had its result) and the time until every replica was
// in sync again. After each scenario the replicas' group has no lag and no
// transaction is left hanging (openTransactions: the coordinators describe
// none of the connector's as open, no partition leader holds one, last
// stable offset = high watermark on every topic). The test prints its own table at the end; the oracle's
// rows go to the faults table (-faults.out; make chaos: .cache/chaos.json)
// with the recovery as "failover p50" and the stall as "failover max".
func TestChaos(t *testing.T) {
	if testing.Short() || os.Getenv("CHAOS") != "1" {
		t.Skip("chaos suite: needs Docker, run by make chaos (CHAOS=1)")
	}
	outage := 30 * time.Second
	if d, err := time.ParseDuration(os.Getenv("CHAOS_OUTAGE")); err == nil && d > 0 {
		outage = d
	}
	start := time.Now()
	c := cluster.StartTest(t, cluster.Config{})
	t.Logf("cluster of 3 nodes (%s) up in %v: %v", cluster.Image(), time.Since(start).Round(time.Millisecond), c.Brokers())
	for _, s := range []chaosScenario{
		{name: "c1 rolling restart", fault: rollingRestart},
		{name: "c3 coordinator frozen", fault: coordinatorOutage(outage, "frozen", (*cluster.Node).Pause, (*cluster.Node).Unpause)},
		{name: "c2 coordinator SIGKILL", fault: killCoordinator(false)},
		{name: "c4 two brokers down", fault: twoBrokersDown(outage), unwritable: []int{1, 2}},
		{name: "c5 coordinator partitioned", fault: coordinatorOutage(outage, "partitioned", (*cluster.Node).Disconnect,
			(*cluster.Node).Reconnect)},
		{name: "c6 replica partitioned from a leader", fault: partitionReplica(outage), container: true, unwritable: []int{2}},
		{name: "c7 coordinator and replica SIGKILL", fault: killCoordinator(true)},
	} {
		if !t.Run(s.name, func(t *testing.T) { s.run(t, c) }) {
			t.Logf("%s failed: the next scenarios run on a cluster that healed (in sync) first", s.name)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		err := c.AwaitInSync(ctx)
		cancel()
		if err != nil {
			t.Fatalf("after %s: %v", s.name, err)
		}
	}
	fmt.Printf("\nchaos scenarios (3 nodes, RF 3, min.insync.replicas=2, %s, outage %v), %v in all:\n", cluster.Image(), outage,
		time.Since(start).Round(time.Second))
	printChaosTable(os.Stdout)
}

// chaosScenario is one fault of TestChaos. fault runs in the test's
// goroutine while the flow produces; it returns when the cluster is whole
// again and reports each moment a fault ended (heals).
type chaosScenario struct {
	name  string
	fault func(t *testing.T, f *chaosFault)
	// unwritable are the replicas (1-based) whose writes cannot succeed
	// during the fault: the /readyz of one whose transactions failed
	// (aborted or ended unknown, by its metrics) must fail at some point
	// of the fault.
	unwritable []int
	// container: replica 2 runs in a container on the cluster's network
	// (StartContainerConnector), so that the fault can cut it from a node.
	container bool
}

// chaosFault is what a fault acts on.
type chaosFault struct {
	c        *cluster.Cluster
	r        *Rig
	replicas []*Connector
	txnID    string        // replica 1's transactional id
	ctr      string        // replica 2's container (scenario.container)
	cut      *Position     // the partition whose leader replica 2 was cut from (c6; Offset unused)
	heals    []time.Time   // when each fault ended (heal)
	inSync   time.Duration // the longest time from a heal until every replica was in sync
	restarts int           // connector replicas restarted after a SIGKILL
}

func (s chaosScenario) run(t *testing.T, c *cluster.Cluster) {
	if s.container {
		if err := cluster.CanCut(); err != nil {
			t.Skipf("%s: %v", s.name, err)
		}
	}
	n := size("CHAOS_COMMANDS", 600, 600)
	span := time.Duration(size("CHAOS_FLOW_SECONDS", 90, 90)) * time.Second
	start := time.Now()
	env := map[string]string{
		// the production timeouts (the defaults), not the rig's short ones
		"PAYSESSION_KAFKA_SESSION_TIMEOUT":        "45s",
		"PAYSESSION_PIPELINE_BATCH_DEADLINE":      "10s",
		"PAYSESSION_PIPELINE_TRANSACTION_TIMEOUT": "30s",
		"PAYSESSION_SHUTDOWN_GRACE":               "30s",
		"PAYSESSION_KAFKA_INSTANCE_ID":            "chaos-1",
		// The reconciler on, as in production, on a scaled clock (there
		// 1m and 10m): a webhook the sandbox gave up delivering while the
		// connector could not write (c4) leaves a session on its previous
		// state until the reconciler polls it.
		"PAYSESSION_RECONCILER_INTERVAL":    "1s",
		"PAYSESSION_RECONCILER_QUIET_AFTER": "5s",
	}
	// The topics as an operator creates them for this cluster.
	apply := []string{"-replication", "3", "-min-insync-replicas", "2", "-partitions", "3", "-session-partitions", "1"}
	r := NewRig(t, RigOptions{Brokers: c.Brokers(), Webhooks: true, Env: env, ApplyTopics: apply,
		SandboxFlags: []string{"-latency", "20ms", "-latency-jitter", "30ms"}})
	second := maps.Clone(r.Connector.Env)
	delete(second, "PAYSESSION_WEBHOOK_LISTEN_ADDR")
	delete(second, "PAYSESSION_METRICS_LISTEN_ADDR")
	second["PAYSESSION_KAFKA_INSTANCE_ID"] = "chaos-2"
	second["PAYSESSION_KAFKA_CLIENT_ID"] += "-chaos-2"
	f := &chaosFault{c: c, r: r, txnID: r.Connector.Env["PAYSESSION_KAFKA_TRANSACTIONAL_ID_PREFIX"] + "-chaos-1"}
	if s.container {
		f.ctr = fmt.Sprintf("paysession-chaos-%s-replica-2-%s", c.RunID(), r.ID)
		f.replicas = []*Connector{r.Connector, StartContainerConnector(t, second, c, f.ctr)}
	} else {
		f.replicas = []*Connector{r.Connector, StartConnector(t, second)}
	}
	t.Logf("%s: rig and 2 replicas ready after %v; %d payouts over %v", s.name, time.Since(start).Round(time.Millisecond), n, span)
	flow, retried := startRetryingFlow(t, r, payoutsPrefixed("chaos", r.ID, 0, n), span)
	awaitFlowExecuted(t, r, flow, 50, 2*time.Minute)
	poll := pollReadyz(f.replicas)
	failedBefore := failedTransactions(t, f.replicas)
	faultStart := time.Now()
	s.fault(t, f)
	healed := f.heals[len(f.heals)-1]
	sum := chaosSummary{scenario: s.name, inSync: f.inSync}
	sum.readyz = poll.stop()
	sum.recovery = awaitAnsweredBefore(t, r, flow, healed, 5*time.Minute)
	failedAfter := failedTransactions(t, f.replicas)
	for _, i := range s.unwritable {
		// A replica whose partitions could not even be fetched has nothing
		// to write: its writes did not fail, and it may stay ready.
		if failed := failedAfter[i-1] - failedBefore[i-1]; failed > 0 && sum.readyz[i-1] == 0 {
			t.Errorf("%s: replica %d answered /readyz 200 throughout the fault, while %v of its transactions failed", s.name, i, failed)
		} else if failed == 0 {
			t.Logf("%s: replica %d had no transaction fail (nothing to write), /readyz non-200 %d times", s.name, i, sum.readyz[i-1])
		}
	}
	r.Produced = append(r.Produced, flow.wait(t)...)
	if n := retried.Load(); n > 0 {
		t.Logf("the flow produced %d batches again after the producer failed them", n)
	}
	r.Outcomes.AwaitAnswered(t, r.Produced, 5*time.Minute)
	sum.stall = longestStall(r.Outcomes.Results(), faultStart)
	sum.cutStall = -1
	if f.cut != nil {
		var mine []Result
		for _, res := range r.Outcomes.Results() {
			if res.SourceTopic == f.cut.Topic && res.SourcePartition == f.cut.Partition {
				mine = append(mine, res)
			}
		}
		sum.cutStall = longestStall(mine, faultStart)
		t.Logf("%s: replica 2's warnings and errors:\n%s", s.name, warnings(f.replicas[1].Log(), 20))
	}
	fireWebhookRetries(t, r)
	for _, p := range f.replicas {
		if !p.Running() {
			t.Errorf("%s: a connector replica exited; last log lines:\n%s", s.name, p.Tail(20))
		}
	}
	row := Oracle(t, r, Row{Scenario: "chaos " + s.name, Seed: seed(), Kills: len(f.heals),
		Restarts: f.restarts}, acceptedOnce)
	for _, p := range f.replicas[1:] {
		row.CardLeaks += logLeaks(t, p.Log())
	}
	stale := Count(awaitFinalStates(t, r, 2*time.Minute))
	row.StaleStates, sum.stale = &stale, int(stale)
	total := 0
	for _, n := range sum.readyz {
		total += n
	}
	row.ReadyzFailed = new(Count(total))
	stall, recovery := Seconds(sum.stall.Seconds()), Seconds(sum.recovery.Seconds())
	row.FailoverP50, row.FailoverMax = &recovery, &stall
	awaitNoLagNoOpenTxn(t, r, 2*time.Minute)
	row.WallSeconds = time.Since(start).Seconds()
	Check(t, row)
	sum.row = row
	chaosTable = append(chaosTable, sum)
}

// rollingRestart stops every node in turn (SIGTERM: a controlled
// shutdown), starts it again and waits until all replicas are back in
// sync before the next, as a release does.
func rollingRestart(t *testing.T, f *chaosFault) {
	for _, n := range f.c.Nodes() {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		stopped := time.Now()
		must(t, n.Stop(ctx, 30*time.Second))
		down := time.Since(stopped)
		must(t, n.Start(ctx))
		f.heal(ctx, t, fmt.Sprintf("node %d stopped in %v and started", n.ID, down.Round(time.Millisecond)))
		cancel()
	}
}

// coordinatorOutage cuts the node coordinating replica 1's transactions
// off for d (cut: freeze it, or partition it from the other nodes and the
// clients), then restores it.
func coordinatorOutage(d time.Duration, what string, cut, restore func(*cluster.Node, context.Context) error) func(t *testing.T, f *chaosFault) {
	return func(t *testing.T, f *chaosFault) {
		n := f.coordinator(t)
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		must(t, cut(n, ctx))
		t.Logf("node %d (coordinator of %s) %s for %v", n.ID, f.txnID, what, d)
		time.Sleep(d) // the outage itself, not a wait for a condition
		must(t, restore(n, ctx))
		f.heal(ctx, t, fmt.Sprintf("node %d no longer %s", n.ID, what))
		t.Logf("coordinator of %s now node %d", f.txnID, f.coordinator(t).ID)
	}
}

// killCoordinator SIGKILLs the node coordinating replica 1's transactions
// while a transaction of it is open, and starts it again at once; with
// replica, replica 1 is SIGKILLed with it and restarted once the node is
// up again.
func killCoordinator(replica bool) func(t *testing.T, f *chaosFault) {
	return func(t *testing.T, f *chaosFault) {
		n := f.coordinator(t)
		evidence, _ := awaitOpenTransaction(t, f.r, 20*time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		must(t, n.Kill(ctx))
		killed := time.Now()
		if replica {
			f.replicas[0].Kill()
		}
		t.Logf("node %d (coordinator of %s) SIGKILLed (%s), replica 1 too: %v", n.ID, f.txnID, evidence, replica)
		must(t, n.Start(ctx))
		f.heal(ctx, t, fmt.Sprintf("node %d started %v after its kill", n.ID, time.Since(killed).Round(time.Millisecond)))
		if replica {
			// Once the node is up: started while it was down, the connector
			// exits at its start-up topic check ("verify kafka topics:
			// describe topic configs: ... broker closed the connection").
			f.replicas[0].Restart(t)
			f.restarts++
		}
	}
}

// twoBrokersDown SIGKILLs two nodes (the coordinator and one more) for d:
// one node is left, below min.insync.replicas, so no write can succeed and
// the controller quorum is lost too.
func twoBrokersDown(d time.Duration) func(t *testing.T, f *chaosFault) {
	return func(t *testing.T, f *chaosFault) {
		first := f.coordinator(t)
		second := f.c.Node(first.ID%3 + 1)
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		must(t, first.Kill(ctx))
		must(t, second.Kill(ctx))
		t.Logf("nodes %d and %d SIGKILLed for %v", first.ID, second.ID, d)
		time.Sleep(d) // the outage itself, not a wait for a condition
		must(t, first.Start(ctx))
		must(t, second.Start(ctx))
		f.heal(ctx, t, fmt.Sprintf("nodes %d and %d started", first.ID, second.ID))
	}
}

// partitionReplica cuts replica 2 (in its container) off from the leader
// of a payout partition it consumes, both ways, for d, and heals the cut:
// the node keeps serving replica 1 and the other nodes, and replica 2
// keeps reaching the other two nodes. Its connections to that node hang
// (packets dropped, not refused), as in a real partition.
func partitionReplica(d time.Duration) func(t *testing.T, f *chaosFault) {
	return func(t *testing.T, f *chaosFault) {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		topic, p, leader := f.consumedLeader(t, "chaos-2")
		f.cut = &Position{Topic: topic, Partition: p}
		adm := kadm.NewClient(f.r.Client)
		group := f.r.Connector.Env["PAYSESSION_KAFKA_GROUP_ID"]
		txn := f.r.Connector.Env["PAYSESSION_KAFKA_TRANSACTIONAL_ID_PREFIX"] + "-chaos-2"
		gc, tc := adm.FindGroupCoordinators(ctx, group)[group], adm.FindTxnCoordinators(ctx, txn)[txn]
		heal, err := f.c.Cut(ctx, f.ctr, leader)
		must(t, err)
		t.Logf("replica 2 cut from node %d, leader of %s/%d (the payout topic: %v), for %v (group coordinator node %d, replica 2's transaction coordinator node %d)",
			leader.ID, topic, p, topic == f.r.Topic(codec.KindInitPayout), d, gc.NodeID, tc.NodeID)
		time.Sleep(d) // the outage itself, not a wait for a condition
		must(t, heal(ctx))
		f.heal(ctx, t, fmt.Sprintf("replica 2's cut from node %d healed", leader.ID))
	}
}

// consumedLeader returns a payout partition that the replica whose client
// id contains suffix consumes (any command partition of it when it has no
// payout partition) and that partition's leader.
func (f *chaosFault) consumedLeader(t *testing.T, suffix string) (string, int32, *cluster.Node) {
	t.Helper()
	adm := kadm.NewClient(f.r.Client)
	group, payouts := f.r.Connector.Env["PAYSESSION_KAFKA_GROUP_ID"], f.r.Topic(codec.KindInitPayout)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		described, err := adm.DescribeGroups(ctx, group)
		var topic string
		var part int32 = -1
		if err == nil {
			for _, m := range described[group].Members {
				a, ok := m.Assigned.AsConsumer()
				if !ok || !strings.Contains(m.ClientID, suffix) {
					continue
				}
				for _, tp := range a.Topics {
					if len(tp.Partitions) > 0 && (part < 0 || tp.Topic == payouts) {
						topic, part = tp.Topic, tp.Partitions[0]
					}
				}
			}
		}
		if part >= 0 {
			md, err := adm.Metadata(ctx, topic)
			cancel()
			if err == nil {
				if pd, ok := md.Topics[topic].Partitions[part]; ok && pd.Leader > 0 {
					return topic, part, f.c.Node(int(pd.Leader))
				}
			}
		} else {
			cancel()
		}
		if time.Now().After(deadline) {
			t.Fatalf("no partition of a member %q of %s found: %v", suffix, group, err)
		}
		time.Sleep(200 * time.Millisecond) // polling the group coordinator
	}
}

// heal waits until the three nodes answer again, each for itself (the
// fault has ended: that moment is noted in f.heals) and then until every replica is
// back in sync (noted in f.inSync), and logs both after what.
func (f *chaosFault) heal(ctx context.Context, t *testing.T, what string) {
	t.Helper()
	begun := time.Now()
	must(t, f.c.AwaitReady(ctx))
	healed := time.Now()
	must(t, f.c.AwaitInSync(ctx))
	f.heals = append(f.heals, healed)
	f.inSync = max(f.inSync, time.Since(healed))
	t.Logf("%s: 3 nodes ready after %v, replicas in sync after %v", what, healed.Sub(begun).Round(time.Millisecond),
		time.Since(begun).Round(time.Millisecond))
}

// coordinator returns the node coordinating replica 1's transactional id.
func (f *chaosFault) coordinator(t *testing.T) *cluster.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		resp := kadm.NewClient(f.r.Client).FindTxnCoordinators(ctx, f.txnID)
		if co, ok := resp[f.txnID]; ok && co.Err == nil && co.NodeID > 0 {
			return f.c.Node(int(co.NodeID))
		}
		if ctx.Err() != nil {
			t.Fatalf("no coordinator found for %s: %v", f.txnID, resp)
		}
		time.Sleep(200 * time.Millisecond) // polling the cluster until it answers
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// startRetryingFlow is startFlow for a cluster under faults: each batch
// may take up to 5 minutes (a fault lasts longer than startFlow's 60 s),
// and a batch the rig's producer fails with a load error is produced again
// instead of ending the flow (retried counts those). Such an error comes
// when a node's published port accepts and at once closes connections
// while the broker in the container is not listening yet (Docker's port
// proxy): the client calls it neither a network error nor retriable and
// fails the batch, which its idempotent producer does only when no request
// of the batch is in flight, so producing it again writes no record twice.
// A batch that failed by the deadline may have been written: it ends the
// flow (a record written twice would show as a duplicate result).
func startRetryingFlow(t testing.TB, r *Rig, cmds []Command, d time.Duration) (*flow, *atomic.Int64) {
	t.Helper()
	retried := new(atomic.Int64)
	f := startFlowWith(t, cmds, d, func(ctx context.Context, batch []Command) ([]Command, error) {
		out, err := produceCommands(ctx, r, batch, 5*time.Minute)
		for err != nil && !errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil && retried.Load() < 100 {
			retried.Add(1)
			time.Sleep(500 * time.Millisecond) // a pause before producing the failed batch again
			out, err = produceCommands(ctx, r, batch, 5*time.Minute)
		}
		return out, err
	})
	return f, retried
}

// awaitFlowExecuted waits until the sandbox has executed n calls, so that
// a fault lands in a running flow.
func awaitFlowExecuted(t *testing.T, r *Rig, flow *flow, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for len(r.Sandbox.Executions(t)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the sandbox executed fewer than %d calls in %v (%d produced)", n, timeout, flow.count())
		}
		time.Sleep(100 * time.Millisecond) // polling the sandbox's admin endpoint
	}
}

// awaitAnsweredBefore waits until every command the flow had produced by
// healed has its result, and returns how long after healed that was (the
// recovery time; 0 when they were answered already).
func awaitAnsweredBefore(t *testing.T, r *Rig, f *flow, healed time.Time, timeout time.Duration) time.Duration {
	t.Helper()
	f.mu.Lock()
	before := slices.Clone(f.produced)
	f.mu.Unlock()
	// Commands produced during the fault were all acknowledged before the
	// heal at the latest (acks=all); those of the flow's current batch may
	// not be: the snapshot is taken now, which only makes the time longer.
	for {
		got := answered(before, r.Outcomes.Results(), r.Outcomes.DeadLetters())
		if len(got) == len(before) {
			return max(0, time.Since(healed))
		}
		if time.Since(healed) > timeout {
			t.Fatalf("%d of %d commands produced before the heal still unanswered %v after it", len(before)-len(got),
				len(before), timeout)
		}
		time.Sleep(100 * time.Millisecond) // polling the outcome reader
	}
}

// awaitNoLagNoOpenTxn waits until the replicas' group has committed every
// command offset (no lag) and no transaction of the connector is left open
// (openTransactions: described by its coordinator, by the partitions'
// leaders, and last stable offset = high watermark on every partition of
// the rig's topics): nothing hangs.
func awaitNoLagNoOpenTxn(t *testing.T, r *Rig, timeout time.Duration) {
	t.Helper()
	group := r.Connector.Env["PAYSESSION_KAFKA_GROUP_ID"]
	adm := kadm.NewClient(r.Client)
	deadline := time.Now().Add(timeout)
	for {
		var problems []string
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		lags, err := adm.Lag(ctx, group)
		cancel()
		if err != nil {
			problems = append(problems, "lag: "+err.Error())
		} else {
			lags.Each(func(l kadm.DescribedGroupLag) {
				if l.Error() != nil {
					problems = append(problems, fmt.Sprintf("lag of %s: %v", group, l.Error()))
					return
				}
				for _, ps := range l.Lag {
					for _, p := range ps {
						if p.Lag > 0 {
							problems = append(problems, fmt.Sprintf("%s/%d lag %d", p.Topic, p.Partition, p.Lag))
						}
					}
				}
			})
		}
		problems = append(problems, openTransactions(r)...)
		if len(problems) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("after %v: %s", timeout, strings.Join(problems, "; "))
			return
		}
		time.Sleep(500 * time.Millisecond) // polling the cluster
	}
}

// readyzPoll polls the replicas' /readyz every 250 ms in the background
// and counts, per replica, the answers that were not 200.
type readyzPoll struct {
	done   chan struct{}
	result chan []int
}

func pollReadyz(cs []*Connector) *readyzPoll {
	p := &readyzPoll{done: make(chan struct{}), result: make(chan []int, 1)}
	go func() {
		failed := make([]int, len(cs))
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.done:
				p.result <- failed
				return
			case <-tick.C: // the polling pace
			}
			for i, c := range cs {
				if status, _ := c.Readyz(); status != 200 {
					failed[i]++
				}
			}
		}
	}()
	return p
}

// stop ends the polling and returns each replica's count of answers other
// than 200.
func (p *readyzPoll) stop() []int {
	close(p.done)
	return <-p.result
}

// chaosSummary is one scenario's line of the chaos table: the oracle's
// row and what the fault cost.
type chaosSummary struct {
	scenario string
	row      Row
	// stall is the longest time, from the fault's start until every
	// command was answered, in which no result was committed (read).
	stall time.Duration
	// recovery is the time from the (last) heal until every command
	// produced before it had its result.
	recovery time.Duration
	// inSync is the longest time from a heal until all replicas of every
	// partition were in sync again.
	inSync time.Duration
	// cutStall is stall for the results of the one partition whose leader
	// a replica was cut from (c6), -1 elsewhere.
	cutStall time.Duration
	// readyz counts each replica's /readyz answers other than 200 during
	// the fault (polled every 250 ms).
	readyz []int
	stale  int // sessions whose last record on the sessions topic is not the sandbox's final state
}

// chaosTable collects the scenarios of TestChaos, printed at its end.
var chaosTable []chaosSummary

// printChaosTable writes the chaos table: lost and twice are the oracle's
// missing and executed twice + duplicate columns.
func printChaosTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tcommands\tresults\tlost\ttwice\twebhooks pub/exp\tstale sessions\tcard leaks\treadyz non-200 r1/r2\tlongest stall s\tcut partition stall s\trecovery s\tin sync s\twall s\t")
	for _, s := range chaosTable {
		r := s.row
		readyz := "-"
		if s.readyz != nil {
			readyz = strings.Trim(strings.Join(strings.Fields(fmt.Sprint(s.readyz)), "/"), "[]")
		}
		cut := "-"
		if s.cutStall >= 0 {
			cut = fmt.Sprintf("%.1f", s.cutStall.Seconds())
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d/%d\t%d\t%d\t%s\t%.1f\t%s\t%.1f\t%.1f\t%.0f\t\n", s.scenario, r.Commands, r.Results,
			r.Missing, r.ExecutedTwice+r.Duplicate, r.WebhooksPublished, r.WebhooksExpected, s.stale, r.CardLeaks, readyz,
			s.stall.Seconds(), cut, s.recovery.Seconds(), s.inSync.Seconds(), r.WallSeconds)
	}
	_ = tw.Flush()
}

// longestStall returns the longest interval after from in which no result
// was read, up to the last result.
func longestStall(results []Result, from time.Time) time.Duration {
	var reads []time.Time
	for _, r := range results {
		if r.Read.After(from) {
			reads = append(reads, r.Read)
		}
	}
	slices.SortFunc(reads, func(a, b time.Time) int { return a.Compare(b) })
	var most time.Duration
	last := from
	for _, at := range reads {
		most = max(most, at.Sub(last))
		last = at
	}
	return most
}

// warnings returns the last n lines of a process log at level WARN or
// ERROR, and how many there were.
func warnings(path string, n int) string {
	b, _ := os.ReadFile(path)
	var out []string
	for line := range strings.Lines(string(b)) {
		if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
			out = append(out, strings.TrimRight(line, "\n"))
		}
	}
	total := len(out)
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return fmt.Sprintf("%d lines, the last %d:\n%s", total, len(out), strings.Join(out, "\n"))
}

// awaitFinalStates waits until the sessions topic's last state of every
// session is the sandbox's final one (the reconciler settles a session
// whose last webhook was given up), fails t for each that is not after
// timeout, and returns how many were not.
func awaitFinalStates(t *testing.T, r *Rig, timeout time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		bad := finalStateProblems(t, r)
		if len(bad) == 0 || time.Now().After(deadline) {
			for _, p := range bad {
				t.Error(p)
			}
			return len(bad)
		}
		time.Sleep(time.Second) // the reconciler's pace
	}
}

// failedTransactions returns each replica's pipeline transactions that
// aborted or ended unknown so far (its metrics; 0 for one not running).
func failedTransactions(t *testing.T, cs []*Connector) []float64 {
	t.Helper()
	out := make([]float64, len(cs))
	for i, c := range cs {
		if c.Running() {
			out[i] = metricValue(t, c, "paysession_pipeline_transactions_total", `result="abort"`) +
				metricValue(t, c, "paysession_pipeline_transactions_total", `result="unknown"`)
		}
	}
	return out
}
