package reconcile

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/sessionstate"
)

// gatedProducer models a kgo.Client whose buffer is full until release:
// Produce blocks the caller until then (as kgo's does), TryProduce buffers
// the record without blocking and answers it at release.
type gatedProducer struct {
	called  chan struct{} // closed at the first produce call
	release chan struct{}
	once    sync.Once
	wg      sync.WaitGroup
}

func newGatedProducer() *gatedProducer {
	return &gatedProducer{called: make(chan struct{}), release: make(chan struct{})}
}

func (p *gatedProducer) Produce(_ context.Context, r *kgo.Record, promise func(*kgo.Record, error)) {
	p.once.Do(func() { close(p.called) })
	<-p.release
	promise(r, nil)
}

func (p *gatedProducer) TryProduce(_ context.Context, r *kgo.Record, promise func(*kgo.Record, error)) {
	p.once.Do(func() { close(p.called) })
	p.wg.Add(1)
	go func() { defer p.wg.Done(); <-p.release; promise(r, nil) }()
}

// TestPublishDoesNotHoldTheLockWhileProducing: while the reconciler's
// record waits for room in the producer's buffer, the pipeline can still
// take a hold of another session: the Holds lock, which every publisher of
// the process shares, is not held during the wait.
func TestPublishDoesNotHoldTheLockWhileProducing(t *testing.T) {
	prod := newGatedProducer()
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(prod.release) }); prod.wg.Wait() }
	t.Cleanup(free)
	holds := sessionstate.NewHolds()
	r, err := New(Config{Brokers: []string{"127.0.0.1:1"}, Producer: prod, Encoder: jsonEncoder{},
		API: &fakeAPI{}, Holds: holds, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	st := stateOf(session("ps_1", "in_progress", "", t0, "payout", 10), t0)
	type result struct {
		published bool
		err       error
	}
	published := make(chan result, 1)
	go func() {
		ok, err := r.publish(context.Background(), task{id: "ps_1"}, st, false, nil)
		published <- result{ok, err}
	}()
	<-prod.called

	held := make(chan struct{})
	go func() {
		if ok, _ := holds.AdmitAndHold(context.Background(), "ps_2", func() bool { return true }); ok {
			holds.Release("ps_2")
		}
		close(held)
	}()
	select {
	case <-held:
	case <-time.After(10 * time.Second): // only a lock held across the produce gets here
		t.Fatal("another session could not be held while the reconciler's produce waited")
	}
	free()
	if res := <-published; !res.published || res.err != nil {
		t.Fatalf("publish = %v, %v; want published", res.published, res.err)
	}
}
