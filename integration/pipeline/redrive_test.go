package pipeline_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/pipeline"
	"github.com/paysession/paysession/internal/codec"
)

// TestRedrive re-publishes dead letters to their source topic. The original
// record time travels along, so the key-lifetime guard still counts from it:
// a command first written 23.5 h ago comes back expired, a recent one runs.
func TestRedrive(t *testing.T) {
	e := newEnv(t, envOptions{kinds: []codec.CommandKind{codec.KindCapture}})
	now := time.Now()
	letters := map[string]time.Time{key("old"): now.Add(-23*time.Hour - 30*time.Minute), key("recent"): now.Add(-time.Hour)}
	var recs []*kgo.Record
	for k, at := range letters {
		v, err := codec.EncodeSingleObject(&codec.DeadLetter{
			OriginalTopic: e.topics.Commands[codec.KindCapture], OriginalKey: []byte(k),
			OriginalValue:     fmt.Appendf(nil, `{"session_id":%q}`, e.initPayment(t, cardHold).ID),
			OriginalTimestamp: &at, Error: "schema not yet deployed", FailedAt: at,
		})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, &kgo.Record{Topic: e.topics.DeadLetter, Key: []byte(k), Value: v})
	}
	e.produce(t, recs...)
	e.start(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := pipeline.Redrive(ctx, pipeline.RedriveConfig{
		Kafka: []kgo.Opt{kgo.SeedBrokers(e.seeds...)}, DeadLetter: e.topics.DeadLetter, GroupID: "redrive-" + e.id,
		Decode: func(b []byte) (*codec.DeadLetter, error) {
			var dl codec.DeadLetter
			return &dl, decodeOutcome(b, &dl)
		},
	})
	if err != nil || n != len(letters) {
		t.Fatalf("Redrive = %d, %v; want %d", n, err, len(letters))
	}
	for k, at := range letters {
		res := e.out.result(t, k, 30*time.Second)
		want := codec.StatusAccepted
		if now.Sub(at) > 23*time.Hour {
			want = codec.StatusExpired
		}
		if res.Status != want || res.RecordTimestamp == nil || res.RecordTimestamp.UnixMilli() != at.UnixMilli() {
			t.Errorf("%s: %s, record time %v; want %s with the original time %v", k, res.Status, res.RecordTimestamp, want, at)
		}
	}
}
