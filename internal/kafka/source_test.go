package kafka_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/kafka"
)

// TestReadAtFindsRecordsAndNamesTheGone: records are read back by position;
// one deleted by retention, one past the end and one of an unknown topic
// are gone, and say so with ErrGone.
func TestReadAtFindsRecordsAndNamesTheGone(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "cmds"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	opts := []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
	cl, err := kgo.NewClient(append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ctx := context.Background()
	for p, n := range []int{10, 5} {
		for i := range n {
			r := &kgo.Record{Topic: "cmds", Partition: int32(p), Key: []byte(fmt.Sprintf("k%d-%d", p, i))}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	del := kadm.Offsets{}
	del.AddOffset("cmds", 0, 3, -1)
	if _, err := kadm.NewClient(cl).DeleteRecords(ctx, del); err != nil {
		t.Fatal(err)
	}
	at := func(p int32, o int64) kafka.Position { return kafka.Position{Topic: "cmds", Partition: p, Offset: o} }
	positions := []kafka.Position{at(0, 1), at(0, 5), at(0, 7), at(1, 4), at(1, 99), {Topic: "nope", Partition: 0, Offset: 0}}
	found, gone, err := kafka.ReadAt(ctx, opts, 10*time.Second, positions)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		pos kafka.Position
		key string
	}{{at(0, 5), "k0-5"}, {at(0, 7), "k0-7"}, {at(1, 4), "k1-4"}} {
		if r := found[w.pos]; r == nil || string(r.Key) != w.key {
			t.Errorf("%s: record %v, want key %s", w.pos, r, w.key)
		}
	}
	for _, p := range []kafka.Position{at(0, 1), at(1, 99), {Topic: "nope", Partition: 0, Offset: 0}} {
		if err := gone[p]; !errors.Is(err, kafka.ErrGone) {
			t.Errorf("%s: gone = %v, want ErrGone", p, err)
		}
	}
	if len(found)+len(gone) != len(positions) {
		t.Errorf("%d found and %d gone of %d positions", len(found), len(gone), len(positions))
	}
}
