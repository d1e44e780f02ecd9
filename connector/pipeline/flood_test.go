package pipeline

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// floodAPI answers every call after a fixed latency and notes when each
// call started and, for captures, their amounts (a flood's captures carry
// their number as the amount) in the order they were answered.
type floodAPI struct {
	fakeAPI
	latency time.Duration
	mu      sync.Mutex
	started map[string][]time.Time // per session
	done    []int64                // captured amounts, in the order answered
	fail    func(c fakeCall) bool  // a call that hangs until its batch ends
}

func newFloodAPI(latency time.Duration) *floodAPI {
	a := &floodAPI{latency: latency, started: map[string][]time.Time{}}
	a.handle = func(ctx context.Context, c fakeCall) (*payapi.Session, error) {
		a.mu.Lock()
		a.started[c.SessionID] = append(a.started[c.SessionID], time.Now())
		hang := a.fail != nil && a.fail(c)
		a.mu.Unlock()
		if hang {
			<-ctx.Done()
			return nil, &payapi.Error{Code: "timeout", Retryable: true, Sent: true, Err: ctx.Err()}
		}
		select {
		case <-time.After(a.latency):
		case <-ctx.Done():
			return nil, &payapi.Error{Code: "timeout", Retryable: true, Sent: true, Err: ctx.Err()}
		}
		if r, ok := c.Req.(payapi.CaptureRequest); ok && r.Amount != nil {
			a.mu.Lock()
			a.done = append(a.done, r.Amount.Value)
			a.mu.Unlock()
		}
		return &payapi.Session{ID: c.SessionID, Status: "in_progress", UpdatedAt: time.Unix(1, 0)}, nil
	}
	return a
}

// startedBefore counts the calls naming session that started before t.
func (a *floodAPI) startedBefore(session string, t time.Time) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, s := range a.started[session] {
		if s.Before(t) {
			n++
		}
	}
	return n
}

// floodCapture is the n-th capture (from 1) of a session's flood.
func floodCapture(topics Topics, session string, n int) *kgo.Record {
	return &kgo.Record{Topic: topics.Commands[codec.KindCapture], Key: fmt.Appendf(nil, "%s-%04d", session, n),
		Value: fmt.Appendf(nil, `{"session_id":%q,"amount":%d,"currency":"rub"}`, session, n)}
}

// checkCapturedInOrder fails t unless the captures answered are 1..n, each
// once, in that order.
func (a *floodAPI) checkCapturedInOrder(t *testing.T, n int) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, amount := range a.done {
		if amount != int64(i+1) {
			t.Fatalf("capture %d of the flood answered as the %d-th (answered: %v); want offset order", amount, i+1, a.done)
		}
	}
	if len(a.done) != n {
		t.Fatalf("%d captures answered, want %d", len(a.done), n)
	}
}

// TestRunSessionFloodDelaysOthersByTheCap (issue 38 item 5): 200 commands
// of one session, then one of another session on the same partition, at
// 20 ms per call. A batch runs at most MaxPerSession of a session's
// commands and parks the rest behind them, so the other command's result
// is committed after at most MaxPerSession of the flood's calls (its own
// batch's; twice that if the poll split the partition), not after all 200:
// before, its batch ended only when the flood's lane did. The flood still
// runs in offset order, each command once.
func TestRunSessionFloodDelaysOthersByTheCap(t *testing.T) {
	env := newKfakeEnv(t)
	const flood, latency = 200, 20 * time.Millisecond
	api := newFloodAPI(latency)
	var recs []*kgo.Record
	for n := 1; n <= flood; n++ {
		recs = append(recs, floodCapture(env.topics, "ps_4242", n))
	}
	recs = append(recs, captureRecord(env.topics, "other", "ps_7"))
	env.produce(t, recs...) // partition 0, in this order
	p := env.pipeline(t, api, nil)
	stop := env.run(t, p)

	got := env.resultsOnceEach(t, recs, 60*time.Second, stop)
	other := got["other"][0]
	calls := api.startedBefore("ps_4242", other.CompletedAt)
	bound := 2 * p.cfg.MaxPerSession
	t.Logf("the other command's result came after %d of the flood's %d calls (bound %d), %v after its record",
		calls, flood, bound, other.CompletedAt.Sub(*other.RecordTimestamp).Round(time.Millisecond))
	if calls > bound {
		t.Errorf("the other command's result came after %d of the flood's calls, want at most %d", calls, bound)
	}
	for k, rs := range got {
		if rs[0].Status != codec.StatusAccepted {
			t.Errorf("%s: %s %s %s", k, rs[0].Status, deref(rs[0].ErrorCode), deref(rs[0].ErrorDescription))
		}
	}
	api.checkCapturedInOrder(t, flood)
}

// TestRunSessionFloodKeepsOrderWhenParkedAgain: a flood drains through the
// retry topic MaxPerSession records a batch, so most of it is still there
// when a batch parks one of them again (here its call hangs until the batch
// deadline): that one goes to the end of the retry topic, behind the rest.
// The rest, and the fresh commands of the session parked meanwhile, must
// still run after it (queue.go).
func TestRunSessionFloodKeepsOrderWhenParkedAgain(t *testing.T) {
	env := newKfakeEnv(t)
	const flood, later, cut = 40, 5, 10 // captures first, then later; the cut-th hangs once
	api := newFloodAPI(time.Millisecond)
	hung := make(chan struct{})
	api.fail = func(c fakeCall) bool {
		r, ok := c.Req.(payapi.CaptureRequest)
		if !ok || r.Amount == nil || r.Amount.Value != cut || hung == nil {
			return false
		}
		close(hung)
		hung = nil
		return true
	}
	var recs []*kgo.Record
	for n := 1; n <= flood; n++ {
		recs = append(recs, floodCapture(env.topics, "ps_4242", n))
	}
	env.produce(t, recs...)
	stop := env.start(t, api, func(c *Config) { c.MaxPerSession, c.BatchDeadline = 4, time.Second })
	select {
	case <-hung:
	case <-time.After(30 * time.Second):
		t.Fatal("capture 10 was never called")
	}
	var more []*kgo.Record
	for n := flood + 1; n <= flood+later; n++ {
		more = append(more, floodCapture(env.topics, "ps_4242", n))
	}
	env.produce(t, more...) // parked behind: the session has parked commands
	env.resultsOnceEach(t, append(recs, more...), 60*time.Second, stop)
	api.checkCapturedInOrder(t, flood+later)
}
