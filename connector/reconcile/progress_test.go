package reconcile

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestReadyAfterReadingToTheEnd: readiness waits for the assigned
// partitions, transaction markers included, to be read to their end.
func TestReadyAfterReadingToTheEnd(t *testing.T) {
	brokers, prod := newKafka(t, topic)
	ctx := context.Background()
	for _, id := range []string{"ps_a", "ps_b"} {
		v, _ := json.Marshal(stateOf(session(id, "in_progress", "", t0, "payout", 1), t0))
		if err := prod.ProduceSync(ctx, &kgo.Record{Key: []byte(id), Value: v}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	txn, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(topic), kgo.TransactionalID("pipeline-1"))
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Close()
	v, _ := json.Marshal(stateOf(session("ps_c", "in_progress", "", t0, "payout", 1), t0))
	if err := txn.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := txn.ProduceSync(ctx, &kgo.Record{Key: []byte("ps_c"), Value: v}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := txn.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}

	rec, err := New(Config{Brokers: brokers, Producer: prod, Encoder: jsonEncoder{}, API: &fakeAPI{},
		Logger: slog.New(slog.DiscardHandler), Group: "g-ready", Now: (&fakeClock{now: t0}).Now})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Ready(ctx) == nil {
		t.Fatal("ready before joining the group")
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- rec.Run(rctx) }()
	defer func() { cancel(); <-done }()
	waitFor(t, "ready", func() bool { return rec.Ready(ctx) == nil })
	if n := rec.OpenSessions(); n != 3 {
		t.Fatalf("ready with %d sessions loaded, want 3", n)
	}
}
