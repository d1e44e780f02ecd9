package startup_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/integration/harness"
)

// TestSharedProducerRecoversRecreatedTopic: a topic the webhook ingress,
// reconciler or publishers write (here any topic) is deleted and
// recreated; a plain franz-go client then fails with UNKNOWN_TOPIC_ID for
// as long as it lives, the connector's Producer rebuilds its client and
// writes again.
func TestSharedProducerRecoversRecreatedTopic(t *testing.T) {
	t.Parallel()
	seeds := harness.Kafka(t)
	admin := harness.NewClient(t)
	topic := harness.Topic(t, admin, 1)
	p, err := connector.NewProducer(func(caps ...kgo.Opt) (*kgo.Client, error) {
		return kgo.NewClient(append(caps, kgo.SeedBrokers(seeds...), kgo.RequiredAcks(kgo.AllISRAcks()))...)
	}, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	produce := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return p.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("x")}).FirstErr()
	}
	if err := produce(); err != nil {
		t.Fatal(err)
	}
	adm := kadm.NewClient(admin)
	ctx := context.Background()
	if _, err := adm.DeleteTopic(ctx, topic); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 30*time.Second, "topic gone", func() bool {
		td, err := adm.ListTopics(ctx, topic)
		return err == nil && !td.Has(topic)
	})
	harness.Eventually(t, 30*time.Second, "topic recreated", func() bool {
		resp, err := adm.CreateTopic(ctx, 1, -1, nil, topic)
		return err == nil && resp.Err == nil
	})
	var last error
	harness.Eventually(t, 60*time.Second, "a write to the recreated topic succeeds", func() bool {
		last = produce()
		return last == nil
	})
}
