package topics

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// brokersEnv names the bootstrap addresses of the real broker the tests of
// this package use (make test and kafkad set it). connector/ must not import
// integration/, so the tests build their clients from it directly.
const brokersEnv = "KAFKA_BROKERS"

// seeds returns the bootstrap addresses of the test broker, skipping t when
// there is none or in -short mode.
func seeds(t *testing.T) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a Kafka broker: skipped in -short mode")
	}
	env := os.Getenv(brokersEnv)
	if env == "" {
		t.Skip("needs a Kafka broker: set " + brokersEnv + " (e.g. $(go run ./integration/harness/kafkad addr))")
	}
	return strings.Split(env, ",")
}

// newClient returns a client of the test broker, closed when t ends.
func newClient(t *testing.T, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	return newClientAt(t, strings.Join(seeds(t), ","), opts...)
}

// newClientAt returns a client of the brokers at addrs (comma-separated),
// closed when t ends.
func newClientAt(t *testing.T, addrs string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(strings.Split(addrs, ",")...)}, opts...)...)
	if err != nil {
		t.Fatalf("kafka client: %v", err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// newAdmin returns an admin client of the test broker whose metadata is at
// most 10ms old (kadm answers from the client's metadata cache, 5s by
// default), so that waits for topic changes end as soon as they hold.
func newAdmin(t *testing.T) *kadm.Client {
	t.Helper()
	return kadm.NewClient(newClient(t, kgo.MetadataMinAge(10*time.Millisecond)))
}

var unsafeChars = regexp.MustCompile(`[^a-zA-Z0-9._-]+`)

// uniqueTopic returns a topic name made of t's name, what, and a random
// suffix, so that tests sharing the broker never meet.
func uniqueTopic(t *testing.T, what string) string {
	t.Helper()
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	return "test.topics." + unsafeChars.ReplaceAllString(t.Name(), "-") + "." + what + "." + hex.EncodeToString(suffix[:])
}

// createTopic creates a topic with configs (nil values unset), waits until
// every partition has a leader, and deletes it when t ends.
func createTopic(t *testing.T, adm *kadm.Client, name string, partitions int32, configs map[string]*string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := adm.CreateTopic(ctx, partitions, -1, configs, name)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("create topic %s: %v", name, err)
	}
	t.Cleanup(func() { deleteTopic(t, adm, name) })
	eventually(t, 30*time.Second, "topic "+name+" has a leader per partition", func() bool {
		md, err := adm.Metadata(ctx, name)
		if err != nil {
			return false
		}
		td, ok := md.Topics[name]
		if !ok || td.Err != nil || len(td.Partitions) != int(partitions) {
			return false
		}
		for _, p := range td.Partitions {
			if p.Err != nil || p.Leader < 0 {
				return false
			}
		}
		return true
	})
}

// deleteTopic deletes a topic, logging a failure other than its being gone
// already.
func deleteTopic(t *testing.T, adm *kadm.Client, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := adm.DeleteTopic(ctx, name)
	if err == nil {
		err = resp.Err
	}
	if err != nil && !errors.Is(err, kerr.UnknownTopicOrPartition) {
		t.Logf("delete topic %s: %v", name, err)
	}
}

// eventually polls cond until it holds, failing t with what (the condition
// in words) when it does not within timeout.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for: %s", timeout, what)
		}
		<-tick.C
	}
}
