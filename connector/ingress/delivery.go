package ingress

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/sessionstate"
)

// delivery is everything the ingress publishes for one event id.
type delivery struct {
	eventID string
	created time.Time

	mu        sync.Mutex
	built     bool
	published bool // every record acknowledged; records released
	records   []*outRecord
	current   *attempt // nil before the first publish
}

// outRecord is one record of a delivery. A session-state record carries its
// version: when it is re-sent after a failure and a newer state of the
// session was admitted meanwhile, it is dropped instead (never backwards).
type outRecord struct {
	tmpl  kgo.Record
	state *sessionstate.Version
	sent  atomic.Bool
}

// attempt is one round of producing a delivery's unsent records.
type attempt struct {
	started   time.Time
	cancel    context.CancelFunc // releases the records' delivery deadline
	done      chan struct{}
	remaining atomic.Int32
	errMu     sync.Mutex
	err       error
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

// release drops the encoded records once Kafka acknowledged all of them,
// so a remembered event id costs a few hundred bytes, not its payload.
func (d *delivery) release() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.current != nil && d.current.finished() && d.allSent() {
		d.records, d.published = nil, true
	}
}

// allSent reports whether Kafka took every record of d.
func (d *delivery) allSent() bool {
	for _, r := range d.records {
		if !r.sent.Load() {
			return false
		}
	}
	return true
}

// startAttempt produces every unsent record of d and returns the attempt,
// or nil when there is nothing left to send. Callers hold d.mu and the
// session's stripe lock, so records of one session enter the producer in
// the order their states were admitted.
func (in *Ingress) startAttempt(d *delivery) *attempt {
	var todo []*outRecord
	for _, r := range d.records {
		if r.sent.Load() {
			continue
		}
		if r.state != nil {
			if !in.cfg.Tracker.IsLatest(*r.state) {
				r.sent.Store(true) // a newer state was published: never go back
				in.metrics.states.WithLabelValues("superseded").Inc()
				continue
			}
			in.cfg.Tracker.AdmitVersion(*r.state) // again, if a failed attempt retracted it
		}
		todo = append(todo, r)
	}
	if len(todo) == 0 {
		return nil
	}
	a := &attempt{started: time.Now(), done: make(chan struct{})}
	a.remaining.Store(int32(len(todo)))
	in.pending.Add(1)
	ctx, cancel := context.WithTimeout(in.baseCtx, in.cfg.DeliveryTimeout)
	a.cancel = cancel
	for _, r := range todo {
		rec := r.tmpl // a fresh copy: a record is never produced twice
		rec.Context = ctx
		in.cfg.Producer.TryProduce(ctx, &rec, func(_ *kgo.Record, err error) {
			if err != nil {
				a.fail(err)
				if r.state != nil {
					// Not published: a poll or redelivery of this version
					// must not be refused as already out.
					in.cfg.Tracker.Retract(*r.state)
				}
			} else {
				r.sent.Store(true)
			}
			if a.remaining.Add(-1) == 0 {
				a.cancel()
				in.metrics.publishDuration.Observe(time.Since(a.started).Seconds())
				close(a.done)
				in.pending.Done()
			}
		})
	}
	return a
}
