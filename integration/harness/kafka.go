package harness

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/config"
)

// BrokersEnv names the environment variable with the bootstrap addresses of an existing cluster
// (comma-separated). make test sets it to the broker that make kafka-up started.
const BrokersEnv = "KAFKA_BROKERS"

// shared is the broker of this test binary, started on first use when BrokersEnv is unset.
var shared struct {
	once   sync.Once
	broker *Broker
	dir    string
	err    error
}

// Kafka returns the bootstrap addresses of a Kafka cluster for t: $KAFKA_BROKERS when set,
// otherwise a local broker started once for the whole test binary (stopped by Shutdown or Main;
// if neither runs, the broker still dies with the test binary). In -short mode the test is
// skipped: -short is the unit-test run, which has no broker.
func Kafka(t testing.TB) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a Kafka broker: skipped in -short mode")
	}
	if env := os.Getenv(BrokersEnv); env != "" {
		return strings.Split(env, ",")
	}
	shared.once.Do(startShared)
	if shared.err != nil {
		t.Fatalf("local kafka broker: %v", shared.err)
	}
	return []string{shared.broker.Addr()}
}

func startShared() {
	shared.dir, shared.err = os.MkdirTemp("", "paysession-kafka-")
	if shared.err != nil {
		return
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	shared.broker, shared.err = StartBroker(context.Background(), BrokerConfig{Dir: shared.dir, Logger: logger})
}

// Shutdown stops the broker that Kafka started for this test binary, if any, and removes its
// directory. Call it from TestMain after m.Run (or use Main).
func Shutdown() {
	if shared.broker != nil {
		_ = shared.broker.Stop()
	}
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
}

// Main runs the tests of a package that uses Kafka and stops the local broker afterwards:
//
//	func TestMain(m *testing.M) { harness.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	Shutdown()
	os.Exit(code)
}

// StartTestBroker starts a private broker for t alone, in t.TempDir(), stopped when t ends: for
// fault tests that Kill and Restart it. props override broker settings (nil for none). Skipped in
// -short mode.
func StartTestBroker(t testing.TB, props map[string]string) *Broker {
	t.Helper()
	return startTestBroker(t, BrokerConfig{Properties: props})
}

// JoinTestBroker starts a broker-only node of first's cluster for t alone (BrokerConfig.Join),
// stopped when t ends: for fault tests that need a second replica. props override broker settings.
func JoinTestBroker(t testing.TB, first *Broker, props map[string]string) *Broker {
	t.Helper()
	return startTestBroker(t, BrokerConfig{Join: first, Properties: props})
}

// startTestBroker starts cfg in t.TempDir() and stops it when t ends; skipped in -short mode.
func startTestBroker(t testing.TB, cfg BrokerConfig) *Broker {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a Kafka broker: skipped in -short mode")
	}
	cfg.Dir = t.TempDir()
	b, err := StartBroker(context.Background(), cfg)
	if err != nil {
		t.Fatalf("start test broker: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Stop(); err != nil {
			t.Errorf("stop test broker: %v", err)
		}
	})
	return b
}

// NewClient returns a franz-go client seeded with Kafka(t) and closed when t ends.
func NewClient(t testing.TB, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(Kafka(t)...)}, opts...)...)
	if err != nil {
		t.Fatalf("kafka client: %v", err)
	}
	t.Cleanup(cl.Close)
	return cl
}

var unsafeTopicChars = regexp.MustCompile(`[^a-zA-Z0-9._-]+`)

// Topic creates a topic named after t plus a random suffix, with the given number of partitions
// and the cluster's default replication factor, waits until every partition has a leader, and
// deletes it when t ends. Tests sharing one cluster therefore never see each other's records.
func Topic(t testing.TB, cl *kgo.Client, partitions int32) string {
	t.Helper()
	return TopicWith(t, cl, partitions, nil)
}

// NewTopicName returns a topic name of t's with a random suffix, and
// deletes the topic of that name (whoever creates it) when t ends.
func NewTopicName(t testing.TB, cl *kgo.Client) string {
	t.Helper()
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	name := unsafeTopicChars.ReplaceAllString(t.Name(), "-")
	name = fmt.Sprintf("test.%.120s.%s", name, hex.EncodeToString(suffix[:]))
	adm := kadm.NewClient(cl) // not closed: that would close cl, which the caller owns
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := adm.DeleteTopic(ctx, name); err != nil {
			t.Logf("delete topic %s: %v", name, err)
		}
	})
	return name
}

// ConnectorTopicNames returns a fresh name for the topic of every
// PAYSESSION_TOPIC_* variable, each deleted when t ends, and creates none:
// for a test in which `connector topics apply` creates them.
func ConnectorTopicNames(t testing.TB, cl *kgo.Client) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, v := range config.Variables() {
		if strings.HasPrefix(v.Name, config.Prefix+"TOPIC_") {
			out[v.Name] = NewTopicName(t, cl)
		}
	}
	return out
}

// TopicWith is Topic with topic configurations (e.g. cleanup.policy=compact,
// max.message.bytes).
func TopicWith(t testing.TB, cl *kgo.Client, partitions int32, configs map[string]*string) string {
	t.Helper()
	name := NewTopicName(t, cl)
	adm := kadm.NewClient(cl) // not closed: that would close cl, which the caller owns
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := adm.CreateTopic(ctx, partitions, -1, configs, name)
	if err == nil {
		err = resp.Err
	}
	if errors.Is(err, kerr.TopicAlreadyExists) {
		err = nil // the client retried a request that had created it (a cluster under faults): the name is new
	}
	if err != nil {
		t.Fatalf("create topic %s: %v", name, err)
	}
	Eventually(t, 30*time.Second, "topic "+name+" has leaders", func() bool {
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
	return name
}

// ConnectorTopics points every topic variable of the connector
// (PAYSESSION_TOPIC_*) at a fresh topic of t, created as the connector's
// start-up check wants it (TopicConfigs: the sessions and attempts topics
// compacted) plus the configs of extra for that variable (e.g.
// max.message.bytes of a command topic; nil for none); the command and
// retry topics (default names under payments.commands.) get
// commandPartitions partitions, the others one. It returns variable → topic
// name; the topics are deleted when t ends.
func ConnectorTopics(t testing.TB, cl *kgo.Client, commandPartitions int32, extra map[string]map[string]string) map[string]string {
	t.Helper()
	return ConnectorTopicsLayout(t, cl, commandPartitions, 1, extra)
}

// ConnectorTopicsLayout is ConnectorTopics with sessionPartitions partitions
// for the sessions, session-updates and webhook-events topics (which must
// have one count: the session writer derives partition p of two of them
// from partition p of the third), so that several replicas' session writers
// share the sessions.
func ConnectorTopicsLayout(t testing.TB, cl *kgo.Client, commandPartitions, sessionPartitions int32, extra map[string]map[string]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, v := range config.Variables() {
		if !strings.HasPrefix(v.Name, config.Prefix+"TOPIC_") {
			continue
		}
		partitions := int32(1)
		switch {
		case strings.HasPrefix(v.Default, "payments.commands."):
			partitions = commandPartitions
		case v.Name == config.Prefix+"TOPIC_SESSIONS" || v.Name == config.Prefix+"TOPIC_SESSION_UPDATES" ||
			v.Name == config.Prefix+"TOPIC_WEBHOOK_EVENTS":
			partitions = sessionPartitions
		}
		configs := TopicConfigs(v.Name)
		for k, val := range extra[v.Name] {
			if configs == nil {
				configs = map[string]*string{}
			}
			configs[k] = &val
		}
		out[v.Name] = TopicWith(t, cl, partitions, configs)
	}
	return out
}

// TopicConfigs returns the topic configurations the connector's start-up
// check requires of the topic of a PAYSESSION_TOPIC_* variable: compaction
// for the sessions, attempts and control topics, nothing for the others.
func TopicConfigs(variable string) map[string]*string {
	switch variable {
	case config.Prefix + "TOPIC_SESSIONS", config.Prefix + "TOPIC_ATTEMPTS", config.Prefix + "TOPIC_CONTROL":
		compact := "compact"
		return map[string]*string{"cleanup.policy": &compact}
	}
	return nil
}

// Eventually polls cond every 50ms until it holds, failing t with what (the condition in words)
// if it does not hold within timeout. Tests wait on conditions this way, never on fixed sleeps.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for: %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ReadCommitted reads the first n committed records of topic (read_committed,
// from the start), failing t when they are not there within 30 s.
func ReadCommitted(t testing.TB, seeds []string, topic string, n int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(topic),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got []*kgo.Record
	for len(got) < n && ctx.Err() == nil {
		got = append(got, cl.PollFetches(ctx).Records()...)
	}
	if len(got) < n {
		t.Fatalf("%s: %d committed records, want %d", topic, len(got), n)
	}
	return got[:n]
}
