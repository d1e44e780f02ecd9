package main

import (
	"runtime"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/sessionwriter"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/config"
)

func TestMain(m *testing.M) { harness.Main(m) }

// maxBytesPerHistorical bounds what one more historical session (one
// outside the horizon) may cost a writer's heap once it took its partition
// over: nothing, give or take the measurement's noise. Holding every
// session's version cost about 300 bytes.
const maxBytesPerHistorical = 8

// TestTakeoverHoldsOnlyTheHorizon is the bench's claim at test size: a
// session writer that takes over a sessions partition holds the sessions
// within its horizon and nothing of the history before it. Two partitions
// hold the same number of recent sessions (within the last day) and 20,000
// and 200,000 historical ones (30 to 400 days old); each writer, once
// ready, holds the recent ones only, and the second costs the heap no more
// than the first.
func TestTakeoverHoldsOnlyTheHorizon(t *testing.T) {
	brokers := harness.Kafka(t)
	admin := harness.NewClient(t, kgo.MetadataMinAge(100*time.Millisecond))
	const recent = 2_000
	sizes := []int{20_000, 200_000}
	now := time.Now()

	prod, err := kgo.NewClient(fillClientOpts(brokers)...)
	if err != nil {
		t.Fatal(err)
	}
	parts := make([]writerTopics, len(sizes))
	for i, n := range sizes {
		parts[i] = newWriterTopics(t, admin)
		if _, err := (fill{Historical: n, Recent: recent, Now: now}).produce(t.Context(), prod, parts[i].sessions); err != nil {
			prod.Close()
			t.Fatal(err)
		}
	}
	prod.Close() // its buffers are not the writers'

	costs := make([]int64, len(sizes))
	for i, n := range sizes {
		base := liveHeap()
		w, reg, stop := startWriter(t, brokers, parts[i])
		harness.Eventually(t, 2*time.Minute, "the writer took its partition over", func() bool { return w.Ready(t.Context()) == nil })
		costs[i] = liveHeap() - base
		held := gauge(t, reg, "paysession_session_writer_sessions")
		t.Logf("%d historical + %d recent sessions: the writer holds %.0f sessions, heap +%d KiB", n, recent, held, costs[i]>>10)
		if held != recent {
			t.Errorf("%d historical + %d recent sessions: the writer holds %.0f sessions, want the %d recent ones", n, recent, held, recent)
		}
		if err := stop(); err != nil {
			t.Fatalf("stop the writer: %v", err)
		}
	}
	per := float64(costs[1]-costs[0]) / float64(sizes[1]-sizes[0])
	t.Logf("heap per historical session: %.1f bytes", per)
	if per >= maxBytesPerHistorical {
		t.Errorf("each historical session costs the writer %.1f bytes of heap (%d historical: +%d KiB, %d: +%d KiB), want under %d: it keeps sessions older than its horizon",
			per, sizes[0], costs[0]>>10, sizes[1], costs[1]>>10, maxBytesPerHistorical)
	}
}

// writerTopics are the three topics of one session writer, one partition
// each, deleted when the test ends.
type writerTopics struct{ updates, sessions, events string }

func newWriterTopics(t *testing.T, admin *kgo.Client) writerTopics {
	t.Helper()
	return writerTopics{
		updates:  harness.Topic(t, admin, 1),
		sessions: harness.TopicWith(t, admin, 1, harness.TopicConfigs(config.Prefix+"TOPIC_SESSIONS")),
		events:   harness.Topic(t, admin, 1),
	}
}

// startWriter starts a session writer of its own group on topics, its
// metrics in the registry returned.
func startWriter(t *testing.T, brokers []string, topics writerTopics) (*sessionwriter.Writer, *prometheus.Registry, func() error) {
	t.Helper()
	dec, err := codec.NewDecoder(codec.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := codec.NewEncoder(codec.EncoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	w, err := sessionwriter.New(sessionwriter.Config{
		Kafka:   []kgo.Opt{kgo.SeedBrokers(brokers...), kgo.FetchMaxWait(100 * time.Millisecond), kgo.SessionTimeout(6 * time.Second)},
		GroupID: "scale-" + topics.updates, TransactionalID: "scale-" + topics.updates,
		UpdatesTopic: topics.updates, SessionsTopic: topics.sessions, EventsTopic: topics.events,
		Horizon: codec.DefaultHorizon, Clock: time.Now,
		Decoder: dec, Encoder: enc, Registerer: reg, Logger: harness.Logger(t, "SCALE_TEST_LOG"),
	})
	if err != nil {
		t.Fatal(err)
	}
	return w, reg, harness.Background(t, "session writer on "+topics.sessions, w.Run)
}

// liveHeap is the heap's live bytes after a full collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC() // the first one's finalizers and sync.Pool victims
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// gauge returns the value of the unlabelled gauge name in reg.
func gauge(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no gauge %s", name)
	return 0
}
