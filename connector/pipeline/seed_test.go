package pipeline

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func TestSeedParkedFromRetryTopic(t *testing.T) {
	env := newKfakeEnv(t)
	p := newTestPipeline(t, &fakeAPI{}, func(c *Config) {
		c.Kafka = []kgo.Opt{kgo.SeedBrokers(env.seeds...)}
		c.Topics = env.topics
		c.Registerer = nil
	})
	var recs []*kgo.Record
	for i, k := range []string{"key-0001", "key-0002", "key-0003"} {
		in := newInbound(&kgo.Record{Key: []byte(k)}, "capture", false)
		in.cmd = &command{Kind: "capture", SessionID: "ps_1"}
		r := retryRecord(&outcome{in: in, park: &parking{retry: retryState{nextAttempt: time.Now()}}}, env.topics.Retry)
		r.Partition = 0
		if i == 0 {
			r.Key = []byte("other") // any partition: consumed back already below
		}
		recs = append(recs, r)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(env.seeds...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.TransactionalID("seed-test"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	// The group has consumed the first record back.
	var offs kadm.Offsets
	offs.AddOffset(env.topics.Retry, 0, 1, -1)
	if _, err := kadm.NewClient(cl).CommitOffsets(ctx, p.cfg.GroupID, offs); err != nil {
		t.Fatal(err)
	}
	p.parked.apply(nil, []laneKeyPair{{"s:ps_9", "stale"}})
	if err := p.seedParked(ctx, cl); err != nil {
		t.Fatal(err)
	}
	if p.parked.len() != 2 || !p.parked.hasOthers("s:ps_1", map[string]bool{"key-0002": true}) ||
		p.parked.hasOthers("s:ps_1", map[string]bool{"key-0002": true, "key-0003": true}) || p.parked.hasOthers("s:ps_9", nil) {
		t.Fatalf("parked = %v, want key-0002 and key-0003 of ps_1 only", p.parked.m)
	}
}
