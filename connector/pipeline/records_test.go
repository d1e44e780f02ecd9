package pipeline

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
	"github.com/paysession/paysession/internal/payapi"
)

func TestRetryRecordRoundTrip(t *testing.T) {
	recTime := time.UnixMilli(1_700_000_000_123)
	first := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	orig := &kgo.Record{Topic: "cmds.capture", Partition: 3, Offset: 77, Key: []byte("key-0001"),
		Value: []byte(`{"session_id":"ps_9"}`), Timestamp: recTime,
		Headers: []kgo.RecordHeader{{Key: "trace", Value: []byte("t1")}, {Key: header.Attempts, Value: []byte("99")}}}
	in := newInbound(orig, "capture", false)
	in.cmd = &command{Kind: "capture", SessionID: "ps_9"}
	out := &outcome{in: in, park: &parking{retry: retryState{attempts: 3, firstAttempt: first,
		nextAttempt: first.Add(2 * time.Second), sent: true}}}

	r := retryRecord(out, "cmds.retry")
	if string(r.Key) != "ps_9" || r.Topic != "cmds.retry" {
		t.Fatalf("retry record key/topic = %q/%q, want the session id on the retry topic", r.Key, r.Topic)
	}
	r.Topic, r.Partition, r.Offset, r.Timestamp = "cmds.retry", 0, 5, time.Now()
	back := newInbound(r, "", true)
	want := retryState{attempts: 3, firstAttempt: first, nextAttempt: first.Add(2 * time.Second), sent: true}
	if back.key != "key-0001" || back.kind != "capture" || back.src != in.src ||
		!back.recordTime.Equal(recTime) || !back.fromRetry ||
		back.retry.attempts != want.attempts || !back.retry.firstAttempt.Equal(want.firstAttempt) ||
		!back.retry.nextAttempt.Equal(want.nextAttempt) || back.retry.sent != want.sent {
		t.Fatalf("round trip = %+v", back)
	}
	if r.Value != nil {
		t.Errorf("retry record value %q: the command itself, want none (it is read back from its source)", r.Value)
	}
	if _, ok := header.Get(r, "trace"); ok {
		t.Errorf("the producer's header was copied onto the retry record")
	}
	// Read back, the source gives the command and the producer's headers.
	merged := withSource(r, orig)
	if string(merged.Value) != string(orig.Value) || merged.Offset != 5 {
		t.Errorf("with its source: value %q at offset %d, want the command at the retry record's offset", merged.Value, merged.Offset)
	}
	if v, _ := header.Get(merged, "trace"); v != "t1" {
		t.Errorf("with its source: the producer's header is %q, want t1", v)
	}
	if n, _ := header.Int(merged, header.Attempts); n != 3 {
		t.Errorf("with its source: attempts %d, want the retry record's 3 (the producer's own %s header is not the connector's)", n, header.Attempts)
	}
}

func TestResultOf(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	in := newInbound(&kgo.Record{Topic: "t", Partition: 1, Offset: 2, Key: []byte("key-1"), Timestamp: now.Add(-time.Minute)}, "refund", false)
	tests := []struct {
		name string
		out  *outcome
		want codec.CommandResult
	}{
		{"accepted", &outcome{in: in, verdict: verdict{Status: codec.StatusAccepted}, sessionID: "ps_1", attempts: 2, latency: time.Millisecond},
			codec.CommandResult{Status: codec.StatusAccepted, SessionID: ptr("ps_1"), Attempts: 2, LatencyMicros: 1000}},
		{"rejected", &outcome{in: in, verdict: verdict{Status: codec.StatusRejected, Code: "invalid_request", Field: "amount_details.amount", Rule: "positive", Description: "d"}},
			codec.CommandResult{Status: codec.StatusRejected, ErrorCode: ptr("invalid_request"), ErrorField: ptr("amount_details.amount"), ErrorRule: ptr("positive"), ErrorDescription: ptr("d")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resultOf(tt.out, now, 2)
			if got.IdempotencyKey != "key-1" || got.Kind != "refund" || got.SourceTopic != "t" || got.SourcePartition != 1 ||
				got.SourceOffset != 2 || !got.CompletedAt.Equal(now) || *got.APIVersion != 2 {
				t.Fatalf("origin fields = %+v", got)
			}
			if got.Status != tt.want.Status || got.Attempts != tt.want.Attempts || got.LatencyMicros != tt.want.LatencyMicros ||
				deref(got.SessionID) != deref(tt.want.SessionID) || deref(got.ErrorCode) != deref(tt.want.ErrorCode) ||
				deref(got.ErrorField) != deref(tt.want.ErrorField) || deref(got.ErrorRule) != deref(tt.want.ErrorRule) {
				t.Fatalf("result = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestResultOfDisableRecurring: a disable_recurring result carries the
// token state the API answered.
func TestResultOfDisableRecurring(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	in := newInbound(&kgo.Record{Topic: "t", Key: []byte("key-1"), Timestamp: now}, "disable_recurring", false)
	off := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	got := resultOf(&outcome{in: in, verdict: verdict{Status: codec.StatusAccepted},
		answer: answer{Token: &payapi.RecurringToken{Token: "rt_1", IsActive: false, CreatedAt: now, FinishedAt: &off}}}, now, 1)
	if rt := got.RecurringToken; rt == nil || rt.Token != "rt_1" || rt.IsActive || !rt.FinishedAt.Equal(off) || !rt.CreatedAt.Equal(now) {
		t.Fatalf("recurring_token %+v", got.RecurringToken)
	}
}

// A redriven command that is parked keeps its redrive count when it is read
// back from its source, so that its dead letter carries the count and the
// redrive limit does not start over.
func TestParkedRedrivenCommandKeepsItsRedriveCount(t *testing.T) {
	orig := &kgo.Record{Topic: "cmds.capture", Partition: 0, Offset: 9, Key: []byte("key-0002"),
		Value: []byte(`{"session_id":"ps_9"}`), Timestamp: time.UnixMilli(1_700_000_000_000),
		Headers: []kgo.RecordHeader{
			header.New(header.Redrive, "payments.dlq/0/4"),
			header.NewInt(header.RedriveCount, 2),
		}}
	in := newInbound(orig, "capture", false)
	in.cmd = &command{Kind: "capture", SessionID: "ps_9"}
	r := retryRecord(&outcome{in: in, park: &parking{retry: retryState{attempts: 1}}}, "cmds.retry")
	r.Topic, r.Partition, r.Offset = "cmds.retry", 0, 3

	back := newInbound(withSource(r, orig), "", true)
	out := &outcome{in: back, verdict: verdict{Status: codec.StatusInvalid, Code: "schema_registry", Description: "d", deadLetter: true}}
	hs := &kgo.Record{Headers: deadLetterHeaders(out, codec.ValueOriginal)}
	if n, ok := header.Int(hs, header.RedriveCount); !ok || n != 2 {
		t.Fatalf("dead letter of a parked redriven command: redrive count %d (present %v), want 2", n, ok)
	}
}
