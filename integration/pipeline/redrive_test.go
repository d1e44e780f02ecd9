package pipeline_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/redrive"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/header"
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
	n, err := e.redrive()
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

// TestRedriveCardCommand: a rejected init_payment with a full card reaches the
// dead-letter topic without the card number or the security code, and
// redrive still re-publishes the original bytes, read from the source record.
func TestRedriveCardCommand(t *testing.T) {
	e := newEnv(t, envOptions{kinds: []codec.CommandKind{codec.KindInitPayment}})
	k := key("card")
	original := initPaymentJSON(cardSuccess, 0) // amount 0: invalid, never sent
	e.produce(t, e.command(codec.KindInitPayment, k, original))
	e.start(t, nil)
	if res := e.out.result(t, k, 30*time.Second); res.Status != codec.StatusInvalid {
		t.Fatalf("result %s; want invalid", res.Status)
	}
	var letters []*kgo.Record
	e.out.wait(t, 10*time.Second, "dead letter of "+k, func() bool { letters = e.out.dead[k]; return len(letters) > 0 })
	assertProtected(t, letters[0])

	n, err := e.redrive()
	if err != nil || n != 1 {
		t.Fatalf("Redrive = %d, %v; want 1", n, err)
	}
	// The redriven command is still invalid: a second result and a second
	// (again protected) dead letter.
	e.out.wait(t, 30*time.Second, "second dead letter of "+k, func() bool { letters = e.out.dead[k]; return len(letters) > 1 })
	assertProtected(t, letters[1])
	src := harness.ReadCommitted(t, e.seeds, e.topics.Commands[codec.KindInitPayment], 2)
	if string(src[1].Key) != k || string(src[1].Value) != original {
		t.Errorf("redriven record is not the original command (key %q, %d bytes)", src[1].Key, len(src[1].Value))
	}

	// Every header redrive and the pipeline wrote is one schemas/asyncapi.yaml
	// describes on that topic (issue 42 item 6): on the redriven command,
	// on the redrive marker and on the second dead letter (letter, marker,
	// letter on the dead-letter topic).
	vars := map[string]string{config.Prefix + "TOPIC_INIT_PAYMENT": e.topics.Commands[codec.KindInitPayment],
		config.Prefix + "TOPIC_DEAD_LETTER": e.topics.DeadLetter}
	written := append(src[1:], harness.ReadCommitted(t, e.seeds, e.topics.DeadLetter, 3)...)
	seen := harness.CheckWrittenHeaders(t, vars, written)
	for v, want := range map[string][]string{
		"TOPIC_INIT_PAYMENT": {header.RecordTime, header.Redrive, header.RedriveCount},
		"TOPIC_DEAD_LETTER":  {header.Redriven, header.RedriveCount, header.DeadLetterValue},
	} {
		for _, h := range want {
			if !seen[config.Prefix+v][h] {
				t.Errorf("no record on the topic of %s%s carries %s", config.Prefix, v, h)
			}
		}
	}
}

// TestRedriveBySourceTopic is the sequence of issue 40: redrive the dead
// letters of topic A, then those of topic B. The first run must not pass
// over B's letters (a shared group's offsets once did, and the second run
// redrove none); each run redrives its own, and a third run over all
// redrives nothing again.
func TestRedriveBySourceTopic(t *testing.T) {
	e := newEnv(t, envOptions{kinds: []codec.CommandKind{codec.KindCapture, codec.KindRefund}})
	a, b := e.topics.Commands[codec.KindCapture], e.topics.Commands[codec.KindRefund]
	at := time.Now().Add(-time.Hour)
	keys := map[string][]string{}
	var recs []*kgo.Record
	for i := range 6 { // interleaved: A, B, A, B, ...
		topic := []string{a, b}[i%2]
		k := key("letter")
		keys[topic] = append(keys[topic], k)
		v, err := codec.EncodeSingleObject(&codec.DeadLetter{OriginalTopic: topic, OriginalPartition: 0,
			OriginalOffset: int64(1000 + i), OriginalKey: []byte(k), OriginalValue: []byte(`{"session_id":"ps_1"}`),
			OriginalTimestamp: &at, Error: "schema not yet deployed", FailedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, &kgo.Record{Topic: e.topics.DeadLetter, Key: []byte(k), Value: v})
	}
	e.produce(t, recs...)
	for _, step := range []struct {
		name   string
		filter redrive.Filter
		want   int
	}{
		{"A", redrive.Filter{SourceTopic: a}, 3},
		{"B", redrive.Filter{SourceTopic: b}, 3},
		{"all again", redrive.Filter{}, 0},
	} {
		if n, err := e.redriveWith(step.filter); err != nil || n != step.want {
			t.Fatalf("redrive %s = %d, %v; want %d", step.name, n, err, step.want)
		}
	}
	for topic, ks := range keys {
		got := map[string]bool{}
		for _, r := range harness.ReadCommitted(t, e.seeds, topic, len(ks)) {
			got[string(r.Key)] = true
		}
		for _, k := range ks {
			if !got[k] {
				t.Errorf("%s: %s not redriven", topic, k)
			}
		}
	}
}

// assertProtected checks a dead letter: no full card number or security code
// anywhere in the record, the masked card kept, the header saying masked.
func assertProtected(t *testing.T, r *kgo.Record) {
	t.Helper()
	if bytes.Contains(r.Value, []byte(cardSuccess)) || bytes.Contains(r.Value, []byte(`"security_code":"123"`)) {
		t.Fatalf("dead letter at offset %d holds card data", r.Offset)
	}
	for _, h := range r.Headers {
		if bytes.Contains(h.Value, []byte(cardSuccess)) {
			t.Errorf("dead-letter header %s holds the card number", h.Key)
		}
		if h.Key == header.DeadLetterValue && string(h.Value) != string(codec.ValueMasked) {
			t.Errorf("%s = %s; want masked", h.Key, h.Value)
		}
	}
	var dl codec.DeadLetter
	if err := decodeOutcome(r.Value, &dl); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(dl.OriginalValue, []byte(`"number":"411111******1111"`)) ||
		!bytes.Contains(dl.OriginalValue, []byte(`"security_code":"***"`)) {
		t.Errorf("dead letter value is not the masked command")
	}
}

// redrive runs redrive.Run over the env's dead-letter topic.
func (e *env) redrive() (int, error) { return e.redriveWith(redrive.Filter{}) }

// redriveWith runs redrive.Run over the env's dead-letter topic with a
// filter.
func (e *env) redriveWith(f redrive.Filter) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return redrive.Run(ctx, redrive.Config{
		Kafka: []kgo.Opt{kgo.SeedBrokers(e.seeds...)}, DeadLetter: e.topics.DeadLetter,
		TransactionalID: "redrive-" + e.id, Filter: f,
		Decode: func(b []byte) (*codec.DeadLetter, error) {
			var dl codec.DeadLetter
			return &dl, decodeOutcome(b, &dl)
		},
	})
}
