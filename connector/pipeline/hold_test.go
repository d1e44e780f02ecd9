package pipeline

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// bufferedHook closes a channel per record key once the client has buffered
// that record (fetched it, not yet polled).
type bufferedHook struct {
	mu   sync.Mutex
	seen map[string]chan struct{}
}

func (h *bufferedHook) ch(key string) chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.seen[key]
	if !ok {
		c = make(chan struct{})
		h.seen[key] = c
	}
	return c
}

func (h *bufferedHook) OnFetchRecordBuffered(r *kgo.Record) {
	c := h.ch(string(r.Key))
	select {
	case <-c:
	default:
		close(c)
	}
}

// duringFirstCommitEnd runs during in the background once the first
// committing EndTxn reaches the cluster, and answers that EndTxn only when
// during has returned.
func (e *kfakeEnv) duringFirstCommitEnd(during func()) {
	held := make(chan struct{})
	var once sync.Once
	e.cluster.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if !req.(*kmsg.EndTxnRequest).Commit {
			e.cluster.KeepControl()
			return nil, nil, false
		}
		once.Do(func() {
			go func() {
				defer close(held)
				during()
			}()
			e.cluster.SleepControl(func() { <-held })
		})
		return nil, nil, false
	})
}

// waitFor waits until ch is closed, at most d or until ctx ends.
func waitFor(ctx context.Context, ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return false
	}
}

// Records that reach the broker while a transaction ends are fetched at
// once and start with the next batch. franz-go buffers one fetch per broker
// and requests the next only once that one is taken: without hold, D below
// (arriving during End after C was already fetched) is requested only by the
// poll ahead that takes C, and runs a batch after C.
func TestRecordsArrivingDuringEndJoinTheNextBatch(t *testing.T) {
	env := newKfakeEnv(t)
	hook := &bufferedHook{seen: map[string]chan struct{}{}}
	key := func(r *kgo.Record) string { return string(r.Key) }
	a, b := captureRecord(env.topics, "key-a", "ps_1"), captureRecord(env.topics, "key-b", "ps_2")
	c, d := captureRecord(env.topics, "key-c", "ps_3"), captureRecord(env.topics, "key-d", "ps_4")

	// T1 (a) ends with b polled ahead; its EndTxn is held until c is fetched
	// and d has reached the broker.
	env.duringFirstCommitEnd(func() {
		env.produce(t, c)
		if waitFor(context.Background(), hook.ch(key(c)), 5*time.Second) {
			env.produce(t, d)
		}
	})

	var mu sync.Mutex
	var bSawD, cSawD bool
	dCalled := make(chan struct{})
	api := &fakeAPI{}
	api.handle = func(ctx context.Context, call fakeCall) (*payapi.Session, error) {
		switch call.SessionID {
		case "ps_1": // b is fetched before a's batch ends, so T1 polls it ahead
			env.produce(t, b)
			waitFor(ctx, hook.ch(key(b)), 5*time.Second)
		case "ps_2": // runs during T1's End: d is fetched only once End is over
			ok := waitFor(ctx, hook.ch(key(d)), 1500*time.Millisecond)
			mu.Lock()
			bSawD = ok
			mu.Unlock()
		case "ps_3": // in one batch with d, d's call starts while c's runs
			ok := waitFor(ctx, dCalled, 1500*time.Millisecond)
			mu.Lock()
			cSawD = ok
			mu.Unlock()
		case "ps_4":
			close(dCalled)
		}
		return &payapi.Session{ID: call.SessionID, Status: "in_progress", UpdatedAt: time.Unix(1, 0)}, nil
	}
	env.produce(t, a)
	stop := env.start(t, api, func(cfg *Config) {
		cfg.Kafka = append(cfg.Kafka, kgo.WithHooks(hook))
		cfg.BatchDeadline = 5 * time.Second
	})
	env.resultsOnceEach(t, []*kgo.Record{a, b, c, d}, 30*time.Second, stop)
	mu.Lock()
	defer mu.Unlock()
	if !bSawD {
		t.Error("d, which reached the broker during T1's End, was not fetched before the next transaction's poll ahead")
	}
	if !cSawD {
		t.Error("c and d did not run in one batch: d waited for a later poll")
	}
}

// failingEncoder fails one Encode once armed.
type failingEncoder struct {
	jsonCodec
	armed atomic.Bool
}

func (f *failingEncoder) Encode(ctx context.Context, topic string, rec codec.Record) ([]byte, error) {
	if f.armed.Swap(false) {
		return nil, errEncode
	}
	return f.jsonCodec.Encode(ctx, topic, rec)
}

// A transaction that aborts gives its held records back too: c, held on
// another partition than the aborted batch, is consumed again, called once
// and answered once.
func TestHeldRecordsAreConsumedAgainAfterAnAbort(t *testing.T) {
	env := newKfakeEnv(t)
	hook := &bufferedHook{seen: map[string]chan struct{}{}}
	a, b := captureRecord(env.topics, "key-a", "ps_1"), captureRecord(env.topics, "key-b", "ps_2")
	c := captureRecord(env.topics, "key-c", "ps_3")
	c.Partition = 1
	enc := &failingEncoder{}

	// T1 (a) ends with b polled ahead; its EndTxn waits until c is fetched,
	// so that c is held when T2 (b) fails to encode its outcome and aborts.
	env.duringFirstCommitEnd(func() {
		env.produce(t, c)
		waitFor(context.Background(), hook.ch("key-c"), 5*time.Second)
		enc.armed.Store(true)
	})
	api := &fakeAPI{}
	api.handle = func(ctx context.Context, call fakeCall) (*payapi.Session, error) {
		if call.SessionID == "ps_1" {
			env.produce(t, b)
			waitFor(ctx, hook.ch("key-b"), 5*time.Second)
		}
		return &payapi.Session{ID: call.SessionID, Status: "in_progress", UpdatedAt: time.Unix(1, 0)}, nil
	}
	env.produce(t, a)
	stop := env.start(t, api, func(cfg *Config) {
		cfg.Kafka = append(cfg.Kafka, kgo.WithHooks(hook))
		cfg.Encoder = enc
	})
	env.resultsOnceEach(t, []*kgo.Record{a, b, c}, 20*time.Second, stop)
	if v := metricValue(t, env.reg, "paysession_pipeline_transactions_total", "abort"); v != 1 {
		t.Errorf("aborted transactions = %v, want 1 (b's)", v)
	}
	var cCalls int
	for _, call := range api.callsTo("session/capture") {
		if call.SessionID == "ps_3" {
			cCalls++
		}
	}
	if cCalls != 1 {
		t.Errorf("c was called %d times, want 1: a held record is not called before its batch", cCalls)
	}
}
