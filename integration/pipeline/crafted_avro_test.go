package pipeline_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/paysession/paysession/connector/pipeline"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/sensitive"
	"github.com/paysession/paysession/schemas"
)

// craftedBound is how long the valid command behind a crafted one may take
// to get its result: generous for the machine, far below "never".
const craftedBound = 60 * time.Second

// evolvedPayout returns the init_payout schema with one more optional field
// of the given type (a compatible evolution), and a doc that makes its text
// unique to the test.
func evolvedPayout(t *testing.T, fieldType any, doc string) string {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal([]byte(schemas.MustGet(codec.KindInitPayout.SchemaName())), &root); err != nil {
		t.Fatal(err)
	}
	if fieldType != nil {
		root["fields"] = append(root["fields"].([]any), map[string]any{"name": "x", "type": fieldType, "default": nil})
	}
	root["doc"] = doc
	b, _ := json.Marshal(root)
	return string(b)
}

func validPayout() *codec.InitPayout {
	return &codec.InitPayout{Amount: 5000, Currency: "rub", Instrument: codec.Instrument{Type: codec.InstrumentCard,
		Card: &codec.Card{Type: codec.CardBank, BankCard: &codec.BankCard{Number: sensitive.PAN(cardSuccess),
			ExpirationMonth: "12", ExpirationYear: "29", SecurityCode: ptr(sensitive.SecurityCode("123"))}}}}
}

func ptr[T any](v T) *T { return &v }

// confluent frames an Avro body with a registry schema id.
func confluent(id int, body []byte) []byte {
	return append(binary.BigEndian.AppendUint32([]byte{0}, uint32(id)), body...)
}

// TestCraftedAvroThroughPipeline runs the registry-configured pipeline on
// the broker with a schema registry that serves a crafted writer schema:
//   - under the command topic's subject, a compatible evolution of
//     init_payout with an optional array<null>, and a record of it whose
//     block count is 2^62 (the decoder of 790b8b3 spun on it forever and
//     the command behind it never got a result), ahead of a valid command
//     in the same partition;
//   - a schema id registered only under another subject.
//
// Each crafted record gets its invalid result and dead letter, and the
// valid command its result, within craftedBound.
func TestCraftedAvroThroughPipeline(t *testing.T) {
	e := newEnv(t, envOptions{kinds: []codec.CommandKind{codec.KindInitPayout}})
	reg := harness.RegistryClient(t)
	ctx := context.Background()
	topic := e.topics.Commands[codec.KindInitPayout]
	subject := codec.Subject(topic)

	crafted, err := reg.CreateSchema(ctx, subject, sr.Schema{Schema: evolvedPayout(t,
		[]any{"null", map[string]any{"type": "array", "items": "null"}}, "crafted "+e.id)})
	if err != nil {
		t.Fatalf("register the crafted writer schema under %s: %v", subject, err)
	}
	foreign, err := reg.CreateSchema(ctx, "elsewhere-"+e.id+"-value", sr.Schema{Schema: evolvedPayout(t, nil, "foreign "+e.id)})
	if err != nil {
		t.Fatal(err)
	}
	body, err := codec.MarshalAvro(validPayout())
	if err != nil {
		t.Fatal(err)
	}
	craftedBody := binary.AppendUvarint(append(body[:len(body):len(body)], 2), 1<<63) // x: branch 1, block count 2^62 (zig-zag)
	enc, err := codec.NewEncoder(codec.EncoderConfig{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	valid, err := enc.Encode(ctx, topic, validPayout())
	if err != nil {
		t.Fatal(err)
	}

	dec, err := codec.NewDecoder(codec.DecoderConfig{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	e.start(t, func(c *pipeline.Config) { c.Decoder = dec })
	kCrafted, kForeign, kValid := key("crafted"), key("foreign"), key("valid")
	e.produce(t,
		&kgo.Record{Topic: topic, Partition: 0, Key: []byte(kCrafted), Value: confluent(crafted.ID, craftedBody)},
		&kgo.Record{Topic: topic, Partition: 0, Key: []byte(kForeign), Value: confluent(foreign.ID, body)},
		&kgo.Record{Topic: topic, Partition: 0, Key: []byte(kValid), Value: valid})
	start := time.Now()

	if res := e.out.result(t, kValid, craftedBound); res.Status != codec.StatusAccepted {
		t.Fatalf("valid command behind the crafted ones: %s %s", res.Status, deref(res.ErrorDescription))
	}
	t.Logf("valid command answered %v after the crafted ones were produced", time.Since(start).Round(time.Millisecond))
	res := e.out.result(t, kCrafted, craftedBound)
	e.wantInvalid(t, res, kCrafted)
	if deref(res.ErrorCode) != "decode_error" || !strings.Contains(deref(res.ErrorDescription), "malformed Avro") {
		t.Errorf("crafted: %s / %s", deref(res.ErrorCode), deref(res.ErrorDescription))
	}
	res = e.out.result(t, kForeign, craftedBound)
	e.wantInvalid(t, res, kForeign)
	if !strings.Contains(deref(res.ErrorDescription), "not registered under subject "+subject) {
		t.Errorf("foreign subject: %s / %s, want the subject %s named", deref(res.ErrorCode), deref(res.ErrorDescription), subject)
	}
}
