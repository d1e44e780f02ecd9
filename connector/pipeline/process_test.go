package pipeline

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

var testNow = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func newTestPipeline(t *testing.T, api *fakeAPI, mod func(*Config)) *Pipeline {
	t.Helper()
	cfg := Config{GroupID: "g", TransactionalID: "tx", API: api, Decoder: &jsonCodec{}, Encoder: &jsonCodec{},
		Clock: &fakeClock{now: testNow}, Retry: RetryPolicy{MaxAttempts: 3}}
	if mod != nil {
		mod(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestProcess(t *testing.T) {
	unavailable := &payapi.Error{Code: "http_status", HTTPStatus: 503, Retryable: true, Sent: true}
	tests := []struct {
		name      string
		key       string
		value     string
		age       time.Duration
		script    []error // errors of successive capture calls; then success
		want      codec.CommandStatus
		code      string
		attempts  int
		polled    bool
		sentCalls int
	}{
		{"accepted", "key-0001", `{"session_id":"ps_1"}`, 0, nil, codec.StatusAccepted, "", 1, false, 1},
		{"invalid json", "key-0002", `{"session_id":`, 0, nil, codec.StatusInvalid, "decode_error", 0, false, 0},
		{"unknown field", "key-0003", `{"session_id":"ps_1","colour":"red"}`, 0, nil, codec.StatusInvalid, "decode_error", 0, false, 0},
		{"bad key", "k y", `{"session_id":"ps_1"}`, 0, nil, codec.StatusInvalid, "invalid_key", 0, false, 0},
		{"invalid field", "key-0004", `{"session_id":"nope"}`, 0, nil, codec.StatusInvalid, "validation_error", 0, false, 0},
		{"expired", "key-0005", `{"session_id":"ps_1"}`, 23*time.Hour + time.Minute, nil, codec.StatusExpired, "key_expired", 0, false, 0},
		{"5xx then success", "key-0006", `{"session_id":"ps_1"}`, 0, []error{unavailable}, codec.StatusAccepted, "", 2, false, 2},
		{"retries exhausted", "key-0007", `{"session_id":"ps_1"}`, 0, []error{unavailable, unavailable, unavailable},
			codec.StatusIndeterminate, "http_status", 3, true, 3},
		{"params mismatch", "key-0008", `{"session_id":"ps_1"}`, 0,
			[]error{&payapi.Error{Code: "idempotency_key_params_mismatch", HTTPStatus: 400, Sent: true}},
			codec.StatusRejected, "idempotency_key_params_mismatch", 1, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := tt.script
			api := &fakeAPI{}
			api.handle = func(_ context.Context, c fakeCall) (*payapi.Session, error) {
				if c.Endpoint == "session/capture" && len(script) > 0 {
					err := script[0]
					script = script[1:]
					return nil, err
				}
				return &payapi.Session{ID: c.SessionID, Status: "in_progress"}, nil
			}
			p := newTestPipeline(t, api, nil)
			rec := &kgo.Record{Topic: p.cfg.Topics.Commands["capture"], Key: []byte(tt.key), Value: []byte(tt.value),
				Timestamp: testNow.Add(-tt.age)}
			out := p.process(context.Background(), newInbound(rec, "capture", false))
			if out.park != nil {
				t.Fatalf("parked")
			}
			if out.verdict.Status != tt.want || out.verdict.Code != tt.code || out.attempts != tt.attempts {
				t.Fatalf("outcome = %s/%s attempts %d, want %s/%s attempts %d (%s)", out.verdict.Status,
					out.verdict.Code, out.attempts, tt.want, tt.code, tt.attempts, out.verdict.Description)
			}
			if got := len(api.callsTo("session/capture")); got != tt.sentCalls {
				t.Fatalf("capture calls = %d, want %d", got, tt.sentCalls)
			}
			if (out.polled != nil) != tt.polled {
				t.Fatalf("polled = %v, want %v", out.polled != nil, tt.polled)
			}
		})
	}
}

func TestProcessParksAtDeadline(t *testing.T) {
	api := &fakeAPI{handle: func(ctx context.Context, c fakeCall) (*payapi.Session, error) {
		<-ctx.Done()
		return nil, &payapi.Error{Code: "timeout", Retryable: true, Sent: true, Err: ctx.Err()}
	}}
	p := newTestPipeline(t, api, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	rec := &kgo.Record{Key: []byte("key-0001"), Value: []byte(`{"session_id":"ps_1"}`), Timestamp: testNow}
	out := p.process(ctx, newInbound(rec, "capture", false))
	if out.park == nil || out.park.retry.attempts != 1 || !out.park.retry.sent {
		t.Fatalf("outcome = %+v, want parked after one sent attempt", out)
	}
}

func TestProcessExpiredAfterSendIsIndeterminate(t *testing.T) {
	p := newTestPipeline(t, &fakeAPI{}, nil)
	rec := &kgo.Record{Key: []byte("ps_1"), Value: []byte(`{"session_id":"ps_1"}`), Timestamp: testNow,
		Headers: []kgo.RecordHeader{hdr(HeaderKey, "key-0001"), hdr(HeaderKind, "capture"), hdr(HeaderSent, "true"),
			hdrInt(HeaderAttempts, 2), hdrInt(HeaderRecordTime, testNow.Add(-24*time.Hour).UnixMilli())}}
	out := p.process(context.Background(), newInbound(rec, "", true))
	if out.verdict.Status != codec.StatusIndeterminate || out.verdict.Code != "key_expired" {
		t.Fatalf("outcome = %+v", out.verdict)
	}
}
