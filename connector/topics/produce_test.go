package topics

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
)

// produce writes a copy of rec (a produced record keeps the context it was
// produced with) and returns its produce error.
func produce(t *testing.T, cl *kgo.Client, rec *kgo.Record) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	fresh := *rec
	return cl.ProduceSync(ctx, &fresh).FirstErr()
}

// incompressible returns n random bytes: a record that compression cannot
// bring under a topic's limit.
func incompressible(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// TestClassifyRealProduceErrors checks that what a real broker and franz-go
// return for an unwritable topic or an oversized record is classified as
// such, and a healthy produce is not.
func TestClassifyRealProduceErrors(t *testing.T) {
	cl, adm := newClients(t)
	small := []byte("v")

	t.Run("missing topic", func(t *testing.T) {
		cl := harness.NewClient(t, kgo.UnknownTopicRetries(1))
		err := produce(t, cl, &kgo.Record{Topic: missingTopic(t, "never-created"), Value: small})
		if got := Classify(err); got != TopicUnavailable {
			t.Errorf("Classify(%v) = %v, want %v", err, got, TopicUnavailable)
		}
	})

	t.Run("topic deleted and recreated", func(t *testing.T) {
		topic := harness.TopicWith(t, cl, 1, nil)
		stale := harness.NewClient(t, kgo.UnknownTopicRetries(1), kgo.MetadataMinAge(10*time.Millisecond))
		if err := produce(t, stale, &kgo.Record{Topic: topic, Value: small}); err != nil {
			t.Fatalf("produce before delete: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if resp, err := adm.DeleteTopic(ctx, topic); err != nil || resp.Err != nil {
			t.Fatalf("delete topic %s: %v", topic, errors.Join(err, resp.Err))
		}
		harness.Eventually(t, 30*time.Second, "topic "+topic+" deleted", func() bool {
			topics, err := adm.ListTopics(ctx, topic)
			return err == nil && !topics.Has(topic)
		})
		// Recreated under the same name (harness.TopicWith's cleanup deletes it).
		if resp, err := adm.CreateTopic(ctx, 1, -1, nil, topic); err != nil || resp.Err != nil {
			t.Fatalf("recreate topic %s: %v", topic, errors.Join(err, resp.Err))
		}
		harness.Eventually(t, 30*time.Second, "topic "+topic+" recreated with a leader", func() bool {
			topics, err := adm.ListTopics(ctx, topic)
			p, ok := topics[topic].Partitions[0]
			return err == nil && topics.Has(topic) && ok && p.Err == nil && p.Leader >= 0
		})
		err := produce(t, stale, &kgo.Record{Topic: topic, Value: small})
		if got := Classify(err); got != TopicUnavailable {
			t.Errorf("Classify(%v) = %v, want %v", err, got, TopicUnavailable)
		}
	})

	t.Run("record larger than the topic accepts", func(t *testing.T) {
		topic := harness.TopicWith(t, cl, 1, map[string]*string{"max.message.bytes": kadm.StringPtr("1048576")})
		rep, err := Verify(context.Background(), adm, []Want{{Topic: topic, Role: DeadLetter, Write: true}})
		if err != nil {
			t.Fatal(err)
		}
		big := &kgo.Record{Topic: topic, Value: incompressible(2 << 20)}
		if rep.Fits(big) {
			t.Errorf("Fits(2 MiB record) on a 1 MiB topic = true")
		}
		// The broker's refusal, past a client cap larger than the topic's.
		wide := harness.NewClient(t, kgo.ProducerBatchMaxBytes(8<<20), kgo.BrokerMaxWriteBytes(16<<20))
		if err := produce(t, wide, big); Classify(err) != RecordRefused {
			t.Errorf("broker: Classify(%v) = %v, want %v", err, Classify(err), RecordRefused)
		}
		// The client's refusal, with the cap set from the report.
		capped := harness.NewClient(t, kgo.ProducerBatchMaxBytesFn(rep.BatchMaxBytes))
		if err := produce(t, capped, big); Classify(err) != RecordRefused {
			t.Errorf("client: Classify(%v) = %v, want %v", err, Classify(err), RecordRefused)
		}
	})
}

// TestFitsIsSafeAtTheLimit writes the largest records Fits accepts, with
// headers, to a real topic through a producer capped by BatchMaxBytes: both
// the client and the broker must take them.
func TestFitsIsSafeAtTheLimit(t *testing.T) {
	cl, adm := newClients(t)
	topic := harness.TopicWith(t, cl, 1, map[string]*string{"max.message.bytes": kadm.StringPtr("65536")})
	rep, err := Verify(context.Background(), adm, []Want{{Topic: topic, Role: DeadLetter, Write: true}})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.MaxMessageBytes(topic); got != 65536 {
		t.Fatalf("MaxMessageBytes = %d, want 65536", got)
	}
	capped := harness.NewClient(t, kgo.ProducerBatchMaxBytesFn(rep.BatchMaxBytes))
	for _, tc := range []struct {
		name    string
		key     []byte
		headers []kgo.RecordHeader
	}{
		{"value only", nil, nil},
		{"key and headers", []byte("idempotency-key-0001"), []kgo.RecordHeader{
			{Key: "paysession-source-topic", Value: []byte("payments.commands.init-payout")},
			{Key: "paysession-error", Value: bytes.Repeat([]byte{'e'}, 300)},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &kgo.Record{Topic: topic, Key: tc.key, Headers: tc.headers}
			rec.Value = incompressible(65536 - RecordBatchBytes(rec))
			for !rep.Fits(rec) { // the value's length prefix grew with it
				rec.Value = rec.Value[1:]
			}
			if got := RecordBatchBytes(rec); got < 65536-2 {
				t.Fatalf("largest record that fits: %d batch bytes, want about 65536", got)
			}
			if err := produce(t, capped, rec); err != nil {
				t.Errorf("produce a record Fits accepts: %v", err)
			}
			rec.Value = append(rec.Value, 'v')
			if RecordBatchBytes(rec) <= 65536 {
				t.Fatalf("one byte more: still %d batch bytes", RecordBatchBytes(rec))
			}
			if rep.Fits(rec) {
				t.Errorf("Fits(one byte over) = true")
			}
		})
	}
}
