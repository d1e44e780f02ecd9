package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// fakeAPI answers every call through handle, recording the calls.
type fakeAPI struct {
	mu     sync.Mutex
	calls  []fakeCall
	handle func(ctx context.Context, c fakeCall) (*payapi.Session, error)
}

type fakeCall struct {
	Endpoint  string
	SessionID string
	Req       any
}

func (f *fakeAPI) do(ctx context.Context, c fakeCall) (*payapi.Session, error) {
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	if f.handle == nil {
		id := c.SessionID
		if id == "" {
			id = "ps_1"
		}
		return &payapi.Session{ID: id, Status: "in_progress", UpdatedAt: time.Unix(1, 0)}, nil
	}
	return f.handle(ctx, c)
}

func (f *fakeAPI) callsTo(endpoint string) []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeCall
	for _, c := range f.calls {
		if c.Endpoint == endpoint {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeAPI) CreateSession(ctx context.Context, r payapi.CreateSessionRequest, _ ...payapi.CallOption) (*payapi.Session, error) {
	return f.do(ctx, fakeCall{"session/create", "", r})
}
func (f *fakeAPI) InitPayment(ctx context.Context, r payapi.InitPaymentRequest, _ ...payapi.CallOption) (*payapi.Session, error) {
	return f.do(ctx, fakeCall{"session/init/payment", "", r})
}
func (f *fakeAPI) InitPayout(ctx context.Context, r payapi.InitPayoutRequest, _ ...payapi.CallOption) (*payapi.Session, error) {
	return f.do(ctx, fakeCall{"session/init/payout", "", r})
}
func (f *fakeAPI) StartPayment(ctx context.Context, r payapi.StartPaymentRequest, _ ...payapi.CallOption) (*payapi.Session, error) {
	return f.do(ctx, fakeCall{"session/start/payment", r.SessionID, r})
}
func (f *fakeAPI) StartPayout(ctx context.Context, r payapi.StartPayoutRequest, _ ...payapi.CallOption) (*payapi.Session, error) {
	return f.do(ctx, fakeCall{"session/start/payout", r.SessionID, r})
}
func (f *fakeAPI) Confirm(ctx context.Context, id string, _ ...payapi.CallOption) (*payapi.Session, error) {
	return f.do(ctx, fakeCall{"session/confirm", id, id})
}
func (f *fakeAPI) Cancel(ctx context.Context, id string, _ ...payapi.CallOption) (*payapi.Session, error) {
	return f.do(ctx, fakeCall{"session/cancel", id, id})
}
func (f *fakeAPI) Capture(ctx context.Context, r payapi.CaptureRequest, _ ...payapi.CallOption) (*payapi.Session, error) {
	return f.do(ctx, fakeCall{"session/capture", r.SessionID, r})
}
func (f *fakeAPI) Refund(ctx context.Context, r payapi.RefundRequest, _ ...payapi.CallOption) (*payapi.Session, error) {
	return f.do(ctx, fakeCall{"session/refund", r.SessionID, r})
}
func (f *fakeAPI) Status(ctx context.Context, id string, _ ...payapi.CallOption) (*payapi.Session, error) {
	return f.do(ctx, fakeCall{"session/status", id, id})
}
func (f *fakeAPI) VerifyFPSCustomer(ctx context.Context, r payapi.FPSVerificationRequest, _ ...payapi.CallOption) (*payapi.Session, error) {
	return f.do(ctx, fakeCall{"fps/customer_verification", "", r})
}
func (f *fakeAPI) DisableRecurring(ctx context.Context, token string, _ ...payapi.CallOption) (*payapi.RecurringToken, error) {
	_, err := f.do(ctx, fakeCall{"recurrent/disable", "", token})
	return &payapi.RecurringToken{Token: token}, err
}
func (f *fakeAPI) BankPayPush(ctx context.Context, id, phone string, _ ...payapi.CallOption) error {
	_, err := f.do(ctx, fakeCall{"bankpay/push", id, phone})
	return err
}

// jsonCodec decodes commands from strict JSON and encodes outcomes as JSON:
// enough for engine tests that do not exercise Avro.
type jsonCodec struct {
	mu   sync.Mutex
	fail int // Encode fails this many times first
}

func (*jsonCodec) Decode(_ context.Context, _ string, kind codec.CommandKind, value []byte) (codec.Command, error) {
	c := kind.New()
	dec := json.NewDecoder(bytesReader(value))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		return nil, &codec.DecodeError{Format: codec.FormatJSON, Reason: err.Error()}
	}
	return c, nil
}

func (j *jsonCodec) Encode(_ context.Context, _ string, rec codec.Record) ([]byte, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.fail > 0 {
		j.fail--
		return nil, errEncode
	}
	return json.Marshal(rec)
}

// fakeClock is a settable clock whose After fires at once (retry waits
// take no time in engine tests).
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.now = c.now.Add(d)
	t := c.now
	c.mu.Unlock()
	ch := make(chan time.Time, 1)
	ch <- t
	return ch
}

var errEncode = &codec.DecodeError{Reason: "injected encode failure"}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
