package ingress

import (
	"context"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/tracing/kafkatrace"
)

// delivery is what the ingress publishes for one event id: one update
// record.
type delivery struct {
	eventID string

	mu        sync.Mutex
	built     bool
	published bool // acknowledged; record released
	record    *kgo.Record
	current   *attempt // nil before the first publish
}

// attempt is one round of producing a delivery's unsent records.
type attempt struct {
	started time.Time
	cancel  context.CancelFunc // releases the record's delivery deadline
	done    chan struct{}
	errMu   sync.Mutex
	err     error
}

func (a *attempt) fail(err error) {
	a.errMu.Lock()
	if a.err == nil {
		a.err = err
	}
	a.errMu.Unlock()
}

func (a *attempt) result() error {
	a.errMu.Lock()
	defer a.errMu.Unlock()
	return a.err
}

func (a *attempt) finished() bool {
	select {
	case <-a.done:
		return true
	default:
		return false
	}
}

// release drops the encoded record once Kafka acknowledged it, so a
// remembered event id costs a few hundred bytes, not its payload.
func (d *delivery) release() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.settle()
}

// settle marks d published when its last attempt reached Kafka, possibly
// after the request that started it gave up waiting. Callers hold d.mu.
func (d *delivery) settle() {
	if d.current != nil && d.current.finished() && d.current.result() == nil {
		d.record, d.published = nil, true
	}
}

// startAttempt produces d's record and returns the attempt. Callers hold
// d.mu.
func (in *Ingress) startAttempt(d *delivery) *attempt {
	a := &attempt{started: time.Now(), done: make(chan struct{})}
	in.pending.Add(1)
	ctx, cancel := context.WithTimeout(in.baseCtx, in.cfg.DeliveryTimeout)
	a.cancel = cancel
	rec := *d.record                                       // a fresh copy: a record is never produced twice
	rec.Context = kafkatrace.WithRecordSpan(ctx, d.record) // the webhook request's span, for the publish span
	in.cfg.Producer.TryProduce(rec.Context, &rec, func(_ *kgo.Record, err error) {
		if err != nil {
			a.fail(err)
		}
		a.cancel()
		in.metrics.publishDuration.Observe(time.Since(a.started).Seconds())
		close(a.done)
		in.pending.Done()
	})
	return a
}
