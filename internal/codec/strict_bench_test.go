package codec

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// benchmarkDecode measures decoding the init-payout sample command, the
// largest of the samples, from value: the pipeline's per-record cost.
func benchmarkDecode(b *testing.B, value []byte) {
	b.Helper()
	dec, _ := NewDecoder(DecoderConfig{})
	ctx := context.Background()
	b.SetBytes(int64(len(value)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := dec.Decode(ctx, KindInitPayout.DefaultTopic(), KindInitPayout, value); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeJSON measures a strict JSON command decode.
func BenchmarkDecodeJSON(b *testing.B) {
	value, err := json.Marshal(sampleCommands()[KindInitPayout])
	if err != nil {
		b.Fatal(err)
	}
	benchmarkDecode(b, value)
}

// BenchmarkDecodeSingleObject measures a single-object Avro command decode.
func BenchmarkDecodeSingleObject(b *testing.B) {
	value, err := EncodeSingleObject(sampleCommands()[KindInitPayout])
	if err != nil {
		b.Fatal(err)
	}
	benchmarkDecode(b, value)
}

// BenchmarkStrictStringsCheck measures the string check of a decoded Avro
// command alone, the part of BenchmarkDecodeSingleObject that the Avro library
// does not do.
func BenchmarkStrictStringsCheck(b *testing.B) {
	cmd := sampleCommands()[KindInitPayout]
	b.ReportAllocs()
	for b.Loop() {
		if err := checkStrictStrings(FormatSingleObject, cmd); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeSingleObjectSessionState measures reading one session
// state back (session writer rebuild, reconciler, kit consumers).
func BenchmarkDecodeSingleObjectSessionState(b *testing.B) {
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	value, err := EncodeSingleObject(&SessionState{Session: Session{ID: "ps_1", Status: "accepted", CreatedAt: &at,
		Operations: []Operation{{Kind: OperationPayout, ID: "po_1", Status: "succeeded"}}},
		Source: SourceWebhook, ObservedAt: at, APIVersion: 2})
	if err != nil {
		b.Fatal(err)
	}
	dec, _ := NewDecoder(DecoderConfig{})
	ctx := context.Background()
	b.SetBytes(int64(len(value)))
	b.ReportAllocs()
	for b.Loop() {
		var st SessionState
		if err := dec.DecodeRecord(ctx, value, &st); err != nil {
			b.Fatal(err)
		}
	}
}
