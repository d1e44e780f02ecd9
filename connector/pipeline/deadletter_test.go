package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/redrive"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
)

// Sandbox card data of the dead-letter tests (CONTRACTS.md test cards).
const (
	dlPAN  = "4111111111111111"
	dlCode = "737"
)

// invalidCardPayment is an init_payment with a full card that fails
// validation (amount 0): its record goes to the dead-letter topic.
var invalidCardPayment = []byte(`{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"` +
	dlPAN + `","expiration_month":"12","expiration_year":"29","security_code":"` + dlCode + `"}}},"amount":0,"currency":"rub","customer":{"reference":"c-1"}}`)

// avroEncoder encodes outcomes as single-object Avro, as the connector does
// without a registry (the JSON test codec drops dead-letter values).
type avroEncoder struct{}

func (avroEncoder) Encode(_ context.Context, _ string, rec codec.Record) ([]byte, error) {
	return codec.EncodeSingleObject(rec)
}

func decodeLetter(t *testing.T) func([]byte) (*codec.DeadLetter, error) {
	dec, err := codec.NewDecoder(codec.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return func(b []byte) (*codec.DeadLetter, error) {
		var dl codec.DeadLetter
		return &dl, dec.DecodeRecord(context.Background(), b, &dl)
	}
}

// consume reads n committed records of a topic.
func (e *kfakeEnv) consume(t *testing.T, topic string, n int) []*kgo.Record {
	t.Helper()
	return harness.ReadCommitted(t, e.seeds, topic, n)
}

// TestDeadLetterMaskedAndRedrivenFromSource: an invalid init_payment with a
// full card goes to the dead-letter topic without the card number or the
// security code, and redrive re-publishes the original bytes, read back from
// the source record.
func TestDeadLetterMaskedAndRedrivenFromSource(t *testing.T) {
	env := newKfakeEnv(t)
	src := env.topics.Commands[codec.KindInitPayment]
	written := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	cmd := &kgo.Record{Topic: src, Key: []byte("key-card-1"), Value: invalidCardPayment,
		Timestamp: written, Headers: []kgo.RecordHeader{{Key: "trace", Value: []byte("t")}}}
	env.produce(t, cmd) // sets cmd.Partition and cmd.Offset
	dec, err := codec.NewDecoder(codec.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	// The pipeline's clock is an hour after the record time: on the real
	// clock the command would one day be older than the key-lifetime margin
	// and expire instead of being dead-lettered.
	stop := env.start(t, &fakeAPI{}, func(c *Config) {
		c.Decoder, c.Encoder, c.Clock = dec, avroEncoder{}, &fakeClock{now: written.Add(time.Hour)}
	})
	if res := env.consume(t, env.topics.Results, 1); len(res) != 1 {
		t.Fatalf("results: %d", len(res))
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	letter := env.consume(t, env.topics.DeadLetter, 1)[0]
	if bytes.Contains(letter.Value, []byte(dlPAN)) || bytes.Contains(letter.Value, []byte(`"`+dlCode+`"`)) {
		t.Fatalf("dead letter holds card data")
	}
	if v, _ := header.Get(letter, header.DeadLetterValue); v != string(codec.ValueMasked) {
		t.Errorf("%s = %q; want masked", header.DeadLetterValue, v)
	}
	dl, err := decodeLetter(t)(letter.Value)
	if err != nil {
		t.Fatal(err)
	}
	if dl.OriginalTopic != src || dl.OriginalPartition != cmd.Partition || dl.OriginalOffset != cmd.Offset || string(dl.OriginalKey) != "key-card-1" ||
		len(dl.OriginalHeaders) != 1 || dl.OriginalTimestamp == nil || !dl.OriginalTimestamp.Equal(written) {
		t.Errorf("dead letter origin: %s/%d/%d key %q headers %d time %v", dl.OriginalTopic, dl.OriginalPartition,
			dl.OriginalOffset, dl.OriginalKey, len(dl.OriginalHeaders), dl.OriginalTimestamp)
	}
	for _, want := range []string{`"number":"411111******1111"`, `"security_code":"***"`, `"amount":0`} {
		if !bytes.Contains(dl.OriginalValue, []byte(want)) {
			t.Errorf("masked value lacks %s", want)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := redrive.Config{Kafka: []kgo.Opt{kgo.SeedBrokers(env.seeds...)}, DeadLetter: env.topics.DeadLetter, Decode: decodeLetter(t)}
	if n, err := redrive.Run(ctx, cfg); err != nil || n != 1 {
		t.Fatalf("redrive.Run = %d, %v; want 1", n, err)
	}
	again := env.consume(t, src, 2)[1]
	if !bytes.Equal(again.Value, invalidCardPayment) || string(again.Key) != "key-card-1" {
		t.Errorf("redriven record is not the original (key %q, %d bytes)", again.Key, len(again.Value))
	}
	if v, _ := header.Get(again, "trace"); v != "t" {
		t.Errorf("original header lost")
	}
	if in := newInbound(again, "init_payment", false); !in.recordTime.Equal(written) {
		t.Errorf("redriven record time %v; want %v", in.recordTime, written)
	}
	assertConnectHeaders(t, letter, cmd)

	// The redriven command fails again: its dead letter carries the redrive
	// count on, and redrive stops at MaxRedrives.
	stop = env.start(t, &fakeAPI{}, func(c *Config) {
		c.Decoder, c.Encoder, c.Clock = dec, avroEncoder{}, &fakeClock{now: written.Add(time.Hour)}
		c.Registerer = prometheus.NewRegistry() // the first pipeline's metrics stay registered
	})
	env.consume(t, env.topics.Results, 2)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	var second *kgo.Record
	for _, r := range env.consume(t, env.topics.DeadLetter, 3) { // the first letter, its marker, the second
		if r.Offset != letter.Offset && !redrive.IsMarker(r) {
			second = r
		}
	}
	if second == nil {
		t.Fatal("no second dead letter")
	}
	if n, _ := header.Int(second, header.RedriveCount); n != 1 {
		t.Errorf("second dead letter's %s = %d; want 1", header.RedriveCount, n)
	}
	for _, r := range env.consume(t, src, 2) {
		if _, redriven := header.Get(r, header.Redrive); redriven {
			assertConnectHeaders(t, second, r)
		}
	}
	cfg.MaxRedrives = 1
	var re *redrive.Error
	if n, err := redrive.Run(ctx, cfg); n != 0 || !errors.As(err, &re) || len(re.Skipped) != 1 {
		t.Errorf("redrive past MaxRedrives = %d, %v; want the letter skipped", n, err)
	}
}

// assertConnectHeaders checks Kafka Connect's dead-letter headers on a
// letter of the command cmd: its position and the error, without card data.
func assertConnectHeaders(t *testing.T, letter, cmd *kgo.Record) {
	t.Helper()
	msg, _ := header.Get(letter, header.Error)
	want := map[string]string{header.ConnectTopic: cmd.Topic, header.ConnectPartition: fmt.Sprint(cmd.Partition),
		header.ConnectOffset: fmt.Sprint(cmd.Offset), header.ConnectMessage: msg}
	for k, v := range want {
		if got, _ := header.Get(letter, k); got != v || got == "" {
			t.Errorf("%s = %q; want %q", k, got, v)
		}
	}
	for _, h := range letter.Headers {
		if bytes.Contains(h.Value, []byte(dlPAN)) || bytes.Contains(h.Value, []byte(dlCode)) {
			t.Errorf("header %s holds card data", h.Key)
		}
	}
}

func TestProtectHeaders(t *testing.T) {
	p := &Pipeline{cfg: Config{Decoder: &jsonCodec{}}}
	tests := []struct {
		name    string
		value   string
		headers []kgo.RecordHeader
		want    codec.ValueProtection
	}{
		{"clean", `{"session_id":"ps_1"}`, []kgo.RecordHeader{header.New("trace", "t")}, codec.ValueOriginal},
		{"pan in a header", `{"session_id":"ps_1"}`, []kgo.RecordHeader{header.New("note", "card "+dlPAN)}, codec.ValueMasked},
		{"pan in the value", `{"number":"` + dlPAN + `"}`, nil, codec.ValueMasked},
		{"pipeline headers dropped", `{}`, []kgo.RecordHeader{header.New(header.Kind, "capture")}, codec.ValueOriginal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := p.protect(context.Background(), &kgo.Record{Value: []byte(tt.value), Headers: tt.headers})
			if l.protection != tt.want {
				t.Errorf("protection %s; want %s", l.protection, tt.want)
			}
			for _, h := range l.headers {
				if header.Owned(h.Key) || bytes.Contains(h.Value, []byte(dlPAN)) {
					t.Errorf("header %s kept", h.Key)
				}
			}
			if bytes.Contains(l.value, []byte(dlPAN)) {
				t.Errorf("value holds the card number")
			}
		})
	}
}
