package ingress

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestWithRealClient runs the ingress over a real franz-go client against
// an in-process Kafka: acknowledged records are on the topics.
func TestWithRealClient(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, updatesTopic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	f := newFixture(t, func(cfg *Config) { cfg.Producer = cl; cfg.PublishTimeout = 5 * time.Second })
	b := body("payment_finished", "ps_9", "accepted", 1)
	for i := 0; i < 2; i++ {
		if code := f.post(t, b, sign(t, f.key, b)); code != 200 {
			t.Fatalf("delivery %d: status %d", i, code)
		}
	}
	rd, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics(updatesTopic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	got := map[string]int{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for got[updatesTopic] < 1 {
		fs := rd.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("records %v", got)
		}
		fs.EachRecord(func(r *kgo.Record) { got[r.Topic]++ })
	}
	short, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	rd.PollFetches(short).EachRecord(func(r *kgo.Record) { got[r.Topic]++ })
	if got[updatesTopic] != 1 {
		t.Fatalf("records %v, want one update", got)
	}
}
