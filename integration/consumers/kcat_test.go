package consumers

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKcatProducesJSONCommand produces JSON commands with kcat, keyed by idempotency key as an
// upstream team would from a shell, and checks that the connector's decoder reads the valid one
// and rejects the other naming the unknown field.
func TestKcatProducesJSONCommand(t *testing.T) {
	kcat := Kcat(t)
	brokers := harness.Kafka(t)
	cl := harness.NewClient(t)
	topic := harness.Topic(t, cl, 1)

	input := "kcat-key-0001|" + `{"session_id":"ps_123","amount":500,"currency":"rub"}` + "\n" +
		"kcat-key-0002|" + `{"session_id":"ps_124","amout":500}` + "\n"
	cmd := exec.Command(kcat, "-P", "-b", strings.Join(brokers, ","), "-t", topic, "-K", "|", "-H", "producer=kcat")
	cmd.Stdin = strings.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kcat -P: %v\n%s", err, stderr.String())
	}

	consumer := harness.NewClient(t, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var recs []*kgo.Record
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for len(recs) < 2 {
		fs := consumer.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("read %d of 2 kcat records: %v", len(recs), err)
		}
		recs = append(recs, fs.Records()...)
	}

	dec, _ := codec.NewDecoder(codec.DecoderConfig{})
	if err := codec.ValidateIdempotencyKey(string(recs[0].Key)); err != nil {
		t.Fatalf("key %q: %v", recs[0].Key, err)
	}
	if len(recs[0].Headers) != 1 || recs[0].Headers[0].Key != "producer" {
		t.Errorf("headers %v", recs[0].Headers)
	}
	got, err := dec.Decode(ctx, recs[0].Topic, codec.KindCapture, recs[0].Value)
	if err != nil {
		t.Fatal(err)
	}
	amount, cur := int64(500), "rub"
	if want := (&codec.Capture{SessionID: "ps_123", Amount: &amount, Currency: &cur}); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Fatal(err)
	}
	_, err = dec.Decode(ctx, recs[1].Topic, codec.KindCapture, recs[1].Value)
	var de *codec.DecodeError
	if !errors.As(err, &de) || de.Field != "amout" {
		t.Fatalf("unknown field: %v, want a *DecodeError naming amout", err)
	}
}
