package pipeline

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

func TestRedrive(t *testing.T) {
	env := newKfakeEnv(t)
	orig := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	src := env.topics.Commands[codec.KindCapture]
	type wire struct {
		codec.DeadLetter
		Value []byte `json:"value"`
	}
	var dls []*kgo.Record
	for _, k := range []string{"key-0001", "key-0002"} {
		v, _ := json.Marshal(wire{DeadLetter: codec.DeadLetter{OriginalTopic: src, OriginalKey: []byte(k),
			OriginalHeaders: []codec.Header{{Key: "trace", Value: []byte("t")}}, OriginalTimestamp: &orig},
			Value: []byte(`{"session_id":"ps_1"}`)})
		dls = append(dls, &kgo.Record{Topic: env.topics.DeadLetter, Key: []byte(k), Value: v})
	}
	env.produce(t, dls...)
	cfg := RedriveConfig{Kafka: []kgo.Opt{kgo.SeedBrokers(env.seeds...)}, DeadLetter: env.topics.DeadLetter,
		Decode: func(b []byte) (*codec.DeadLetter, error) {
			var w wire
			if err := json.Unmarshal(b, &w); err != nil {
				return nil, err
			}
			w.OriginalValue = w.Value
			return &w.DeadLetter, nil
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := Redrive(ctx, cfg)
	if err != nil || n != 2 {
		t.Fatalf("Redrive = %d, %v; want 2", n, err)
	}
	if n, err := Redrive(ctx, cfg); err != nil || n != 0 {
		t.Fatalf("second Redrive = %d, %v; want 0 (each record once)", n, err)
	}
	cl, _ := kgo.NewClient(kgo.SeedBrokers(env.seeds...), kgo.ConsumeTopics(src),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	defer cl.Close()
	var got []*kgo.Record
	for len(got) < 2 && ctx.Err() == nil {
		got = append(got, cl.PollFetches(ctx).Records()...)
	}
	for _, r := range got {
		in := newInbound(r, "capture", false)
		if !in.recordTime.Equal(orig) || string(r.Value) != `{"session_id":"ps_1"}` {
			t.Errorf("redriven record: time %v value %s", in.recordTime, r.Value)
		}
		if v, _ := header(r, "trace"); v != "t" {
			t.Errorf("original header lost")
		}
	}
}
