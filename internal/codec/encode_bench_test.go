package codec

import (
	"testing"
	"time"
)

// BenchmarkEncodeSingleObject measures one session-state record in the
// single-object encoding, the connector's per-webhook and per-result cost.
func BenchmarkEncodeSingleObject(b *testing.B) {
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	v := &SessionState{Session: Session{ID: "ps_1", Status: "accepted", CreatedAt: &at,
		Operations: []Operation{{Kind: OperationPayout, ID: "po_1", Status: "succeeded"}}},
		Source: SourceWebhook, ObservedAt: at, APIVersion: 2}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeSingleObject(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeSingleObjectPayout measures the init-payout sample command,
// the largest command, in the single-object encoding: what a producer (the
// kit) pays per command.
func BenchmarkEncodeSingleObjectPayout(b *testing.B) {
	v := sampleCommands()[KindInitPayout]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeSingleObject(v); err != nil {
			b.Fatal(err)
		}
	}
}
