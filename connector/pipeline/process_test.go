package pipeline

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
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
			in := p.polled(rec, "capture", false)
			in.neverAttempted = true // a fresh record past every attempt mark
			out := p.process(context.Background(), in)
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
	out := p.process(ctx, p.polled(rec, "capture", false))
	if out.park == nil || out.park.retry.attempts != 1 || !out.park.retry.sent {
		t.Fatalf("outcome = %+v, want parked after one sent attempt", out)
	}
}

func TestProcessExpiredAfterSendIsIndeterminate(t *testing.T) {
	p := newTestPipeline(t, &fakeAPI{}, nil)
	rec := &kgo.Record{Key: []byte("ps_1"), Value: []byte(`{"session_id":"ps_1"}`), Timestamp: testNow,
		Headers: []kgo.RecordHeader{header.New(header.Key, "key-0001"), header.New(header.Kind, "capture"), header.New(header.Sent, "true"),
			header.NewInt(header.Attempts, 2), header.NewInt(header.RecordTime, testNow.Add(-24*time.Hour).UnixMilli())}}
	out := p.process(context.Background(), p.polled(rec, "", true))
	if out.verdict.Status != codec.StatusIndeterminate || out.verdict.Code != "key_expired" {
		t.Fatalf("outcome = %+v", out.verdict)
	}
}

// registryDown is a decoder whose schema registry always fails.
type registryDown struct{}

func (registryDown) Decode(context.Context, string, codec.CommandKind, []byte) (codec.Command, error) {
	return nil, &codec.RegistryError{Op: "schema 7", Err: context.DeadlineExceeded}
}

// TestProcessKeyLifetimeGuard covers what the guard counts as a command's
// age and when an expired command may be called "not sent".
func TestProcessKeyLifetimeGuard(t *testing.T) {
	old := testNow.Add(-23*time.Hour - time.Minute)
	capture := func(ts time.Time, hs ...kgo.RecordHeader) *kgo.Record {
		return &kgo.Record{Topic: "payments.commands.capture", Key: []byte("key-0001"),
			Value: []byte(`{"session_id":"ps_1"}`), Timestamp: ts, Headers: hs}
	}
	parked := func(ts time.Time, hs ...kgo.RecordHeader) *kgo.Record {
		r := capture(ts, append(hs, header.New(header.Key, "key-0001"), header.New(header.Kind, "capture"))...)
		r.Topic, r.Key = "payments.commands.retry", []byte("ps_1")
		return r
	}
	tests := []struct {
		name      string
		rec       *kgo.Record
		fromRetry bool
		proven    bool // inbound.neverAttempted
		decoder   Decoder
		want      codec.CommandStatus
		code      string
		calls     int // capture calls
		polled    bool
	}{
		{"old, never attempted: expired", capture(old), false, true, nil, codec.StatusExpired, "key_expired", 0, false},
		{"old, not proven never attempted: indeterminate, settled by status", capture(old), false, false, nil,
			codec.StatusIndeterminate, "key_expired", 0, true},
		{"old, parked after a sent attempt: indeterminate", parked(testNow, header.New(header.Sent, "true"), header.NewInt(header.Attempts, 1),
			header.NewInt(header.RecordTime, old.UnixMilli())), true, true, nil, codec.StatusIndeterminate, "key_expired", 0, true},
		{"record-time header on a plain record is ignored", capture(testNow, header.NewInt(header.RecordTime, old.UnixMilli())),
			false, true, nil, codec.StatusAccepted, "", 1, false},
		{"a young record-time header cannot make a parked command younger", parked(old,
			header.NewInt(header.RecordTime, testNow.UnixMilli())), true, true, nil, codec.StatusExpired, "key_expired", 0, false},
		{"a redriven record keeps its original time", capture(testNow, header.NewInt(header.RecordTime, old.UnixMilli()),
			header.New(header.Redrive, "payments.dead-letter/0/7")), false, true, nil, codec.StatusExpired, "key_expired", 0, false},
		{"first attempt older than the record time counts", parked(testNow, header.NewTime(header.FirstAttempt, old),
			header.NewInt(header.Attempts, 1), header.New(header.Sent, "false")), true, true, nil, codec.StatusExpired, "key_expired", 0, false},
		{"first seen older than the record time counts", parked(testNow, header.NewTime(header.FirstSeen, old)), true, true, nil,
			codec.StatusExpired, "key_expired", 0, false},
		{"a future record time counts as now", capture(testNow.Add(48 * time.Hour)), false, true, nil,
			codec.StatusAccepted, "", 1, false},
		{"the guard runs before a failing registry", capture(old), false, true, registryDown{},
			codec.StatusExpired, "key_expired", 0, false},
		{"registry failures past the budget: rejected, dead-lettered", parked(testNow, header.NewInt(header.DecodeFailures, 29)),
			true, true, registryDown{}, codec.StatusRejected, "schema_registry_unavailable", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &fakeAPI{}
			p := newTestPipeline(t, api, func(c *Config) {
				if tt.decoder != nil {
					c.Decoder = tt.decoder
				}
			})
			in := p.polled(tt.rec, "capture", tt.fromRetry)
			in.neverAttempted = tt.proven
			out := p.process(context.Background(), in)
			if out.park != nil {
				t.Fatalf("parked: %+v", out.park)
			}
			if out.verdict.Status != tt.want || out.verdict.Code != tt.code {
				t.Fatalf("outcome = %s/%s (%s), want %s/%s", out.verdict.Status, out.verdict.Code,
					out.verdict.Description, tt.want, tt.code)
			}
			if got := len(api.callsTo("session/capture")); got != tt.calls {
				t.Fatalf("capture calls = %d, want %d", got, tt.calls)
			}
			if (out.polled != nil) != tt.polled {
				t.Fatalf("polled = %v, want %v", out.polled != nil, tt.polled)
			}
			if tt.code == "schema_registry_unavailable" && !out.verdict.deadLetter {
				t.Fatalf("not dead-lettered")
			}
		})
	}
}

// TestProcessParksOnRegistryFailureWithinBudget: a registry failure parks
// the command and counts the failure, so the budget is kept across parking.
func TestProcessParksOnRegistryFailureWithinBudget(t *testing.T) {
	p := newTestPipeline(t, &fakeAPI{}, func(c *Config) { c.Decoder = registryDown{} })
	rec := &kgo.Record{Topic: "payments.commands.capture", Key: []byte("key-0001"), Value: []byte(`{}`), Timestamp: testNow}
	out := p.process(context.Background(), p.polled(rec, "capture", false))
	if out.park == nil || out.park.retry.decodeFailures != 1 {
		t.Fatalf("outcome = %+v, want parked with 1 decode failure", out)
	}
	back := newInbound(retryRecord(out, "payments.commands.retry"), "", true)
	if back.retry.decodeFailures != 1 {
		t.Fatalf("decode failures after the retry topic = %d, want 1", back.retry.decodeFailures)
	}
}

// TestProcessAcceptedWithoutSession: an ok answer without a session (the
// spec makes it optional) is accepted, and one status query learns the
// session's state; kinds whose answer never holds a session do not ask.
func TestProcessAcceptedWithoutSession(t *testing.T) {
	tests := []struct {
		kind, value string
		polled      bool
	}{
		{"capture", `{"session_id":"ps_1"}`, true},
		{"bankpay_push", `{"session_id":"ps_1","phone":"79000000000"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			api := &fakeAPI{}
			api.handle = func(_ context.Context, c fakeCall) (*payapi.Session, error) {
				if c.Endpoint == "session/status" {
					return &payapi.Session{ID: c.SessionID, Status: "success"}, nil
				}
				return nil, nil
			}
			p := newTestPipeline(t, api, nil)
			rec := &kgo.Record{Key: []byte("key-0001"), Value: []byte(tt.value), Timestamp: testNow}
			out := p.process(context.Background(), p.polled(rec, tt.kind, false))
			if out.verdict.Status != codec.StatusAccepted {
				t.Fatalf("status %s (%s), want accepted", out.verdict.Status, out.verdict.Description)
			}
			if (out.polled != nil) != tt.polled || (len(api.callsTo("session/status")) == 1) != tt.polled {
				t.Fatalf("polled %v, status calls %d; want polled %v", out.polled != nil, len(api.callsTo("session/status")), tt.polled)
			}
		})
	}
}

// polled is a command record as newBatch reads it: newInbound, then read.
func (p *Pipeline) polled(r *kgo.Record, kind string, fromRetry bool) *inbound {
	in := newInbound(r, kind, fromRetry)
	p.read(context.Background(), in)
	return in
}
