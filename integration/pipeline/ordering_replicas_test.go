package pipeline_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/pipeline"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/paysim"
)

// TestSessionOrderAcrossThreeReplicas tests the order connector/README.md promises
// with several replicas (issue 14, item 4): a session's commands on one
// partition of one command topic execute in offset order, whichever of the
// group's replicas holds the partition, across a replica leaving and
// another joining mid-run. Each session's partial refunds go to one
// partition (upstream partitions by session id); 3 replicas share 6
// partitions, one stops after a third of the results, a fourth starts after
// two thirds.
func TestSessionOrderAcrossThreeReplicas(t *testing.T) {
	const sessions, refunds, partitions = 12, 4, 6
	e := newEnv(t, envOptions{kinds: []codec.CommandKind{codec.KindRefund}, partitions: partitions})
	var ids []string
	for range sessions {
		ids = append(ids, e.initPayment(t, cardSuccess).ID)
	}
	if err := e.sim.SetFaults(paysim.Faults{Latency: 40 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	var (
		order     []string
		sessionOf = map[string]string{}
		recs      []*kgo.Record
	)
	for round := range refunds {
		for i, id := range ids {
			k := fmt.Sprintf("ord3-%s-%d-%d", e.id, i, round)
			order, sessionOf[k] = append(order, k), id
			r := e.command(codec.KindRefund, k, fmt.Sprintf(`{"session_id":%q,"amount":500,"currency":"rub"}`, id))
			r.Partition = int32(i % partitions) // upstream partitions by session id
			recs = append(recs, r)
		}
	}
	manual, err := kgo.NewClient(kgo.SeedBrokers(e.seeds...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer manual.Close()
	if err := manual.ProduceSync(t.Context(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}

	replica := func(n int) func() error {
		return harness.Background(t, fmt.Sprintf("replica %d", n), func(ctx context.Context) error {
			cfg := e.config()
			cfg.Kafka = []kgo.Opt{kgo.SeedBrokers(e.seeds...), kgo.FetchMaxWait(100 * time.Millisecond),
				kgo.SessionTimeout(6 * time.Second)}
			cfg.MaxPollRecords = 4 // small batches: many transactions, and work left for the rebalances
			cfg.TransactionalID = fmt.Sprintf("pipeline-%s-%d", e.id, n)
			p, err := pipeline.New(cfg)
			if err != nil {
				return err
			}
			return p.Run(ctx)
		})
	}
	replica(1)
	stop2 := replica(2)
	replica(3)
	e.out.count(t, len(order)/3, 60*time.Second)
	if err := stop2(); err != nil {
		t.Fatalf("replica 2 stop: %v", err)
	}
	e.out.count(t, 2*len(order)/3, 60*time.Second)
	replica(4)
	e.out.count(t, len(order), 90*time.Second)

	for _, k := range order {
		if res := e.out.result(t, k, time.Second); res.Status != codec.StatusAccepted {
			t.Errorf("%s: %s %s %s", k, res.Status, deref(res.ErrorCode), deref(res.ErrorDescription))
		}
	}
	for _, id := range ids {
		var got, want []string
		execs, _ := e.sim.Executions(id)
		seen := map[string]bool{}
		for _, x := range execs {
			if _, ours := sessionOf[x.IdempotencyKey]; ours && !seen[x.IdempotencyKey] {
				seen[x.IdempotencyKey] = true
				got = append(got, x.IdempotencyKey)
			}
		}
		for _, k := range order {
			if sessionOf[k] == id {
				want = append(want, k)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("session %s executed %v, want offset order %v", id, got, want)
		}
	}
	checkSessionOrder(t, e.proxy.forwarded(), order, sessionOf)
}
