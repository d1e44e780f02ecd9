package startup_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/connector/topics"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/outbound"
)

// TestSharedProducerFollowsARaisedLimit: the shared producer (webhook
// ingress, reconciler, publishers) is built with a topic's 16 KiB limit as
// its batch cap, so a 24 KiB record fails (MESSAGE_TOO_LARGE, in the
// client). Once the topic's max.message.bytes is raised on the cluster and
// read again, the producer builds a new client with the raised cap, and the
// record is written, without a restart; the Sizer pinned to the producer's
// caps sees the raised cap too.
func TestSharedProducerFollowsARaisedLimit(t *testing.T) {
	t.Parallel()
	seeds := harness.Kafka(t)
	admin := harness.NewClient(t, kgo.MetadataMinAge(100*time.Millisecond))
	adm := kadm.NewClient(admin)
	topic := harness.TopicWith(t, admin, 1, map[string]*string{"max.message.bytes": kadm.StringPtr("16384")})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rep, err := topics.Verify(ctx, adm, []topics.Want{{Topic: topic, Role: topics.Periodic, Write: true}})
	if err != nil {
		t.Fatal(err)
	}
	limits := topics.NewLive(rep)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	go func() { _ = limits.Run(ctx, func() *kadm.Client { return adm }, 200*time.Millisecond, log) }()
	p, err := connector.NewProducer(func(caps ...kgo.Opt) (*kgo.Client, error) {
		return kgo.NewClient(append(caps, kgo.SeedBrokers(seeds...), kgo.RequiredAcks(kgo.AllISRAcks()))...)
	}, limits, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	sizer, err := outbound.NewSizer(limits, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	sizer = sizer.Pinned(p.Caps())
	produce := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return p.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: make([]byte, 24<<10)}).FirstErr()
	}
	if err := produce(); !errors.Is(err, kerr.MessageTooLarge) {
		t.Fatalf("24 KiB to a 16 KiB topic: %v, want MESSAGE_TOO_LARGE", err)
	}
	resp, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "max.message.bytes", Value: kadm.StringPtr("1048576")}}, topic)
	if err == nil {
		_, err = resp.On(topic, nil)
	}
	if err != nil {
		t.Fatalf("raise the limit: %v", err)
	}
	harness.Eventually(t, 30*time.Second, "the raised limit read", func() bool { return limits.MaxMessageBytes(topic) == 1048576 })
	var last error
	harness.Eventually(t, 30*time.Second, "a 24 KiB record written after the raise", func() bool {
		last = produce()
		return last == nil
	})
	if !sizer.Fits(&kgo.Record{Topic: topic, Value: make([]byte, 24<<10)}) {
		t.Errorf("the Sizer pinned to the producer still sizes against the old cap")
	}
}
