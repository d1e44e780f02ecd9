package consumers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/sensitive"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
)

var at = time.Date(2026, 11, 23, 10, 0, 0, 123456000, time.UTC)

const atISO = "2026-11-23T10:00:00.123456+00:00"

func ptr[T any](v T) *T { return &v }

func randomID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// sampleOutcomes returns one record of every outcome schema, keyed as the connector keys them.
func sampleOutcomes() []struct {
	key string
	rec codec.Record
} {
	sess := codec.Session{ID: "ps_77", Status: "accepted", CreatedAt: &at, UpdatedAt: &at,
		Operations: []codec.Operation{{Kind: codec.OperationPayment, ID: "pm_1", Status: "succeeded",
			Amount: ptr(int64(2500)), Currency: ptr("rub"), RRN: ptr("123"),
			Instrument: codec.CardSummary(codec.CardBank, sensitive.PAN("4111111111111111"), "visa"),
			Refunds:    []codec.OperationRefund{{ID: "rf_1", Status: "accepted", IsChargeback: true, Amount: ptr(int64(100)), Currency: ptr("rub")}},
		}}}
	return []struct {
		key string
		rec codec.Record
	}{
		{"key-0001", &codec.CommandResult{IdempotencyKey: "key-0001", Kind: codec.KindCapture, SourceTopic: "payments.commands.capture",
			SourcePartition: 2, SourceOffset: 41, Status: codec.StatusRejected, ErrorCode: ptr("invalid_request"),
			ErrorField: ptr("amount_details.amount"), ErrorRule: ptr("positive"), SessionID: ptr("ps_77"), Attempts: 1,
			FirstAttemptAt: &at, LastAttemptAt: &at, LatencyMicros: 1500, CompletedAt: at, APIVersion: ptr(int32(2))}},
		{"ps_77", &codec.SessionState{Session: sess, Source: codec.SourceAPIResponse, ObservedAt: at, APIVersion: 1, IdempotencyKey: ptr("key-0001")}},
		{"ps_77", &codec.WebhookEvent{EventID: strings.Repeat("ab", 32), Type: "payment_refunded", SessionID: "ps_77", ReceivedAt: at, APIVersion: 2, Session: sess}},
		{"bad-key", &codec.DeadLetter{OriginalTopic: "payments.commands.refund", OriginalOffset: 9, OriginalKey: []byte("bad-key"),
			OriginalValue: []byte(`{"x":1}`), OriginalHeaders: []codec.Header{{Key: "h", Value: []byte("v")}},
			Error: "decode json command: field x: unknown field", ErrorField: ptr("x"), FailedAt: at}},
		{"w-1", &codec.WalletBalance{WalletID: "w-1", Amount: 990000, Currency: "rub", ObservedAt: at, APIVersion: 1}},
		{"fps-banks", &codec.FPSBanks{Banks: []codec.FPSBank{{ID: "100000000111", EngName: "Sber", RuName: "Сбербанк"}}, ObservedAt: at}},
	}
}

// TestPythonConsumerReadsOutcomes produces every outcome record, in the Confluent wire format
// (registered in Apicurio) and in single-object encoding, inside Kafka transactions with an
// aborted one in between, and checks that a confluent-kafka + fastavro consumer reading with
// read_committed decodes exactly the committed records, field for field.
func TestPythonConsumerReadsOutcomes(t *testing.T) {
	python := Python(t)
	_ = python
	ctx := context.Background()
	brokers := harness.Kafka(t)
	regURL := harness.SchemaRegistry(t)
	cl := harness.NewClient(t, kgo.TransactionalID("consumers-test-"+randomID()), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	samples := sampleOutcomes()
	topics := make([]string, len(samples))
	topicOf := map[string]string{}
	for i, s := range samples {
		topics[i] = harness.Topic(t, cl, 1)
		topicOf[topics[i]] = string(s.rec.SchemaName())
	}
	srcl, err := sr.NewClient(sr.URLs(regURL))
	if err != nil {
		t.Fatal(err)
	}
	regEnc, err := codec.NewEncoder(codec.EncoderConfig{Registry: srcl})
	if err != nil {
		t.Fatal(err)
	}
	soeEnc, _ := codec.NewEncoder(codec.EncoderConfig{})

	transact := func(enc *codec.Encoder, commit bool, garbage bool) {
		t.Helper()
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for i, s := range samples {
			value := []byte("aborted, never to be read")
			if !garbage {
				if value, err = enc.Encode(ctx, topics[i], s.rec); err != nil {
					t.Fatal(err)
				}
			}
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topics[i], Key: []byte(s.key), Value: value}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
	}
	transact(regEnc, true, false)
	transact(nil, false, true)
	transact(soeEnc, true, false)

	got := ReadOutcomes(t, ReadConfig{Brokers: brokers, Topics: topics, Count: 2 * len(samples), Registry: regURL})
	formats := map[string][]string{}
	for _, o := range got {
		formats[o.Topic] = append(formats[o.Topic], o.Format)
		if o.Schema != topicOf[o.Topic] {
			t.Errorf("%s: schema %s, want %s", o.Topic, o.Schema, topicOf[o.Topic])
		}
		raw, _ := json.Marshal(o.Value)
		if strings.Contains(string(raw), "4111111111111111") {
			t.Errorf("%s carries a full card number: %s", o.Schema, raw)
		}
		checkOutcome(t, o)
	}
	for _, topic := range topics {
		if f := strings.Join(formats[topic], ","); f != "confluent,single-object" {
			t.Errorf("%s (%s): formats %s, want confluent then single-object", topic, topicOf[topic], f)
		}
	}
}

// checkOutcome checks the fields a downstream team relies on, as the Python side saw them.
func checkOutcome(t *testing.T, o Outcome) {
	t.Helper()
	v := o.Value
	eq := func(what string, got, want any) {
		t.Helper()
		if gb, wb := jsonOf(got), jsonOf(want); gb != wb {
			t.Errorf("%s %s: got %s, want %s", o.Schema, what, gb, wb)
		}
	}
	switch o.Schema {
	case "command_result":
		eq("key", *o.Key, "key-0001")
		eq("kind", v["kind"], "capture")
		eq("status", v["status"], "rejected")
		eq("error_rule", v["error_rule"], "positive")
		eq("source_offset", v["source_offset"], 41)
		eq("completed_at", v["completed_at"], atISO)
		eq("record_timestamp", v["record_timestamp"], nil)
	case "session_state", "webhook_event":
		sess := v["session"].(map[string]any)
		op := sess["operations"].([]any)[0].(map[string]any)
		eq("session.id", sess["id"], "ps_77")
		eq("operation.kind", op["kind"], "payment")
		eq("operation.amount", op["amount"], 2500)
		eq("instrument", op["instrument"], map[string]any{"type": "card", "card_type": "bank_card", "card_bin": "411111",
			"card_last4": "1111", "card_brand": "visa", "bank_system_type": nil, "account_masked": nil, "bank_id": nil})
		eq("refund.is_chargeback", op["refunds"].([]any)[0].(map[string]any)["is_chargeback"], true)
	case "dead_letter":
		eq("original_value", v["original_value"], "eyJ4IjoxfQ==")
		eq("original_headers", v["original_headers"], []any{map[string]any{"key": "h", "value": "dg=="}})
	case "wallet_balance":
		eq("amount", v["amount"], 990000)
	case "fps_banks":
		eq("banks", v["banks"], []any{map[string]any{"id": "100000000111", "eng_name": "Sber", "ru_name": "Сбербанк"}})
	default:
		t.Errorf("unexpected schema %s", o.Schema)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
