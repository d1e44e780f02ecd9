package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestProduceAll: every record of a transaction acknowledged gives no
// error; a record the cluster cannot take is returned with its error, so
// the caller can name its topic.
func TestProduceAll(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "known"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := kgo.NewGroupTransactSession(kgo.SeedBrokers(c.ListenAddrs()...), kgo.TransactionalID("t1"),
		kgo.ConsumerGroup("g1"), kgo.ConsumeTopics("known"), kgo.UnknownTopicRetries(1))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	if err := s.Begin(); err != nil {
		t.Fatal(err)
	}
	recs := []*kgo.Record{{Topic: "known", Value: []byte("a")}, {Topic: "known", Value: []byte("b")}}
	if r, err := ProduceAll(ctx, s.Client(), recs); r != nil || err != nil {
		t.Fatalf("ProduceAll = %v, %v; want nil, nil", r, err)
	}
	for _, r := range recs {
		if r.Offset < 0 || r.Partition != 0 {
			t.Errorf("record %s not acknowledged: partition %d offset %d", r.Value, r.Partition, r.Offset)
		}
	}
	if _, err := s.End(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}

	if err := s.Begin(); err != nil {
		t.Fatal(err)
	}
	bad := &kgo.Record{Topic: "missing", Value: []byte("c")}
	r, err := ProduceAll(ctx, s.Client(), []*kgo.Record{{Topic: "known", Value: []byte("d")}, bad})
	if err == nil || r != bad {
		t.Fatalf("ProduceAll = %v, %v; want the record to the missing topic and its error", r, err)
	}
	if _, err := s.End(ctx, kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
}
