package main

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// TestSessionsTopicNeverGoesBack plays the story and reads the sessions
// topic in order: per session, every state is newer than the one before.
// The pipeline's api_response states commit with their transaction while
// webhook states are produced at once; without the holds between the two
// an older state regularly landed after a newer one. Three rounds, because
// the race depends on timing.
func TestSessionsTopicNeverGoesBack(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the embedded system")
	}
	for round := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		env, err := startDemoEnv(ctx, t.TempDir(), discardLogger())
		if err != nil {
			t.Fatal(err)
		}
		cctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- env.connector.Run(cctx) }()
		if err := playStory(ctx, env, &printer{w: io.Discard}); err != nil {
			t.Fatal(err)
		}
		stop()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		states := readSessions(ctx, t, env)
		last := map[string]codec.SessionVersion{}
		lastSource := map[string]codec.SessionSource{}
		for _, st := range states {
			v := codec.VersionOf(&st)
			if prev, ok := last[v.SessionID]; ok && !codec.Newer(v, prev) {
				t.Errorf("round %d: %s went back: %+v (%s) after %+v (%s)", round, v.SessionID, v, st.Source, prev, lastSource[v.SessionID])
			}
			last[v.SessionID] = v
			lastSource[v.SessionID] = st.Source
		}
		if len(states) < 10 {
			t.Errorf("round %d: only %d session states read", round, len(states))
		}
		env.sandbox.Close()
		env.kafka.Close()
		cancel()
	}
}

const sentinel = "__end_of_test__"

func readSessions(ctx context.Context, t *testing.T, env *demoEnv) []codec.SessionState {
	t.Helper()
	topic := env.cfg.Topics.Sessions
	cl, err := kgo.NewClient(kgo.SeedBrokers(env.cfg.Kafka.Brokers...), kgo.ConsumeTopics(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	// A sentinel per partition marks the end: records committed before it
	// are all readable once it is.
	parts, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	open := map[int32]bool{}
	parts.Each(func(o kadm.ListedOffset) {
		open[o.Partition] = true
		r := &kgo.Record{Topic: topic, Partition: o.Partition, Key: []byte(sentinel)}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	})
	dec, _ := codec.NewDecoder(codec.DecoderConfig{})
	var out []codec.SessionState
	reached := func() bool { return len(open) == 0 }
	for !reached() {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("sessions topic not read to its end: partitions %v open", open)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if string(r.Key) == sentinel {
				delete(open, r.Partition)
				return
			}
			var st codec.SessionState
			if err := dec.DecodeRecord(ctx, r.Value, &st); err != nil {
				t.Fatal(err)
			}
			out = append(out, st)
		})
	}
	return out
}
