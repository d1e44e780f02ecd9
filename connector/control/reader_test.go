package control

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

const topic = "payments.control"

func cluster(t *testing.T) []kgo.Opt {
	t.Helper()
	c, err := kfake.NewCluster(kfake.SeedTopics(3, topic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
}

func produce(t *testing.T, opts []kgo.Opt, kind string, r Record) {
	t.Helper()
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: topic, Key: []byte(kind), Value: r.Encode()}).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// runUntilKnown runs r until the test ends and waits until its state is
// known.
func runUntilKnown(t *testing.T, r *Reader) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-r.Known():
	case <-time.After(10 * time.Second):
		t.Fatal("state never known")
	}
}

func pausedKinds(r *Reader) []string {
	state, _ := r.Paused()
	var out []string
	for k := range state {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// The latest record of each kind is its state, known once the records
// written before the start are read; a later record is followed.
func TestReaderFollowsTheLatestRecordOfEachKind(t *testing.T) {
	opts := cluster(t)
	at := time.Date(2026, 11, 28, 19, 0, 0, 0, time.UTC)
	produce(t, opts, "capture", Record{Paused: true, By: "ops", At: at})
	produce(t, opts, "refund", Record{Paused: true, By: "ops", At: at})
	produce(t, opts, "refund", Record{Paused: false, By: "ops", At: at})
	produce(t, opts, "no_such_kind", Record{Paused: true, At: at})
	reg := prometheus.NewRegistry()
	r, err := New(Config{Kafka: opts, Topic: topic, Kinds: []string{"capture", "refund", "cancel"},
		FetchMaxWait: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler), Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	if _, known := r.Paused(); known {
		t.Fatal("state known before anything was read")
	}
	runUntilKnown(t, r)
	state, _ := r.Paused()
	if got := pausedKinds(r); !slices.Equal(got, []string{"capture"}) {
		t.Fatalf("paused %v, want [capture]", got)
	}
	if c := state["capture"]; c.By != "ops" || !c.At.Equal(at) {
		t.Errorf("capture paused by %q at %v", c.By, c.At)
	}
	if v := testutil.ToFloat64(r.paused.WithLabelValues("capture")); v != 1 {
		t.Errorf("paysession_control_paused{capture} = %v, want 1", v)
	}
	produce(t, opts, "capture", Record{Paused: false, At: at})
	produce(t, opts, "cancel", Record{Paused: true, At: at})
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Equal(pausedKinds(r), []string{"cancel"}) {
		if time.Now().After(deadline) {
			t.Fatalf("paused %v, want [cancel]", pausedKinds(r))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if v := testutil.ToFloat64(r.paused.WithLabelValues("capture")); v != 0 {
		t.Errorf("paysession_control_paused{capture} = %v after resume, want 0", v)
	}
}

// An empty topic is known at once: nothing is paused.
func TestReaderEmptyTopicIsKnown(t *testing.T) {
	opts := cluster(t)
	r, err := New(Config{Kafka: opts, Topic: topic, Kinds: []string{"capture"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	runUntilKnown(t, r)
	if got := pausedKinds(r); len(got) != 0 {
		t.Errorf("paused %v, want none", got)
	}
}

func TestDecodeRefusesUnknownMembers(t *testing.T) {
	if _, err := Decode([]byte(`{"paused":true,"kinds":["x"]}`)); err == nil {
		t.Error("unknown member accepted")
	}
	if r, err := Decode(nil); err != nil || r.Paused {
		t.Errorf("tombstone: %+v, %v; want running", r, err)
	}
}

// The record of the topic settings `connector topics apply` keeps is
// skipped without a warning: it is expected, not a mistyped kind. Before,
// every replica warned of it at each start.
func TestReaderSkipsTheTopicsPlanQuietly(t *testing.T) {
	opts := cluster(t)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	rec := &kgo.Record{Topic: topic, Key: []byte(TopicsPlanKey), Value: []byte(`{"partitions":12}`)}
	if err := cl.ProduceSync(context.Background(), rec).FirstErr(); err != nil {
		t.Fatal(err)
	}
	produce(t, opts, "no_such_kind", Record{Paused: true})
	var logs strings.Builder
	r, err := New(Config{Kafka: opts, Topic: topic, Kinds: []string{"capture"}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	runUntilKnown(t, r)
	if strings.Contains(logs.String(), TopicsPlanKey) || !strings.Contains(logs.String(), "no_such_kind") {
		t.Errorf("logs, want a warning of no_such_kind only:\n%s", logs.String())
	}
}
