package sessionstate

import (
	"context"
	"sync"

	"github.com/paysession/paysession/internal/codec"
)

// Holds orders the sessions topic between the transactional producer of the
// pipeline and the plain producer of the ingress and the reconciler in one
// process. Records of two producers land in the order the broker appends
// them, which is not the order the states were admitted in:
//
//   - The pipeline publishes session states inside a Kafka transaction: they
//     become visible only at commit. A webhook state published meanwhile
//     would land before them although it is newer, and the topic would end
//     on the older state. So the pipeline holds a session from admitting its
//     state until the transaction ends, and the plain publishers admit and
//     start publishing a state of that session only once no hold is left.
//   - The other way round, a plain publisher's state on its way to the
//     broker (admitted, not yet acknowledged) must land before a newer state
//     the pipeline admits next, so the pipeline's admission waits until the
//     session has nothing in flight.
type Holds struct {
	mu       sync.Mutex // guards both counters
	held     counter    // open transactions holding the session
	inFlight counter    // plain publishes not yet acknowledged
}

// NewHolds returns an empty set of holds.
func NewHolds() *Holds { return &Holds{held: newCounter(), inFlight: newCounter()} }

// AdmitAndHold waits until session id has no plain publish in flight, then
// calls admit and, when it returns true, holds id until Release. admit runs
// under the lock that Do also takes, so a state admitted here and one
// admitted in Do are never interleaved. It returns ctx's error (admit has not
// run) when an in-flight publish outlives ctx.
func (h *Holds) AdmitAndHold(ctx context.Context, id string, admit func() bool) (bool, error) {
	if err := h.lockWhenZero(ctx, h.inFlight, id); err != nil {
		return false, err
	}
	defer h.mu.Unlock()
	if !admit() {
		return false, nil
	}
	h.held.add(id)
	return true, nil
}

// Release drops one hold of each id (call it once per successful
// AdmitAndHold, after the transaction ended, committed or not).
func (h *Holds) Release(ids ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, id := range ids {
		h.held.drop(id)
	}
}

// Do waits until session id is not held, then runs fn under the lock, so no
// hold can start while fn admits and starts publishing. fn must be quick (it
// must not wait for Kafka); it returns whether it started a publish. Then Do
// counts that publish as in flight until the returned settle is called (once,
// when the broker answered, whatever the answer); settle is nil when fn
// started nothing. Do returns ctx's error when the hold outlives ctx; fn has
// not run then.
func (h *Holds) Do(ctx context.Context, id string, fn func() (started bool)) (settle func(), err error) {
	if err := h.lockWhenZero(ctx, h.held, id); err != nil {
		return nil, err
	}
	defer h.mu.Unlock()
	if !fn() {
		return nil, nil
	}
	h.inFlight.add(id)
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			h.inFlight.drop(id)
			h.mu.Unlock()
		})
	}, nil
}

// lockWhenZero locks h.mu at a moment c counts nothing for id and returns
// with it locked; it returns ctx's error, unlocked, when the wait outlives
// ctx.
func (h *Holds) lockWhenZero(ctx context.Context, c counter, id string) error {
	for {
		h.mu.Lock()
		ch, busy := c.zero[id]
		if !busy {
			return nil
		}
		h.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// counter counts per session; a session's channel is closed when its count
// drops back to zero. The caller holds Holds.mu.
type counter struct {
	n    map[string]int
	zero map[string]chan struct{}
}

func newCounter() counter {
	return counter{n: map[string]int{}, zero: map[string]chan struct{}{}}
}

func (c counter) add(id string) {
	if c.n[id] == 0 {
		c.zero[id] = make(chan struct{})
	}
	c.n[id]++
}

// drop decrements id's count (nothing when it is zero) and closes its
// channel at zero.
func (c counter) drop(id string) {
	if c.n[id] == 0 {
		return
	}
	if c.n[id]--; c.n[id] == 0 {
		delete(c.n, id)
		close(c.zero[id])
		delete(c.zero, id)
	}
}

// TxnAdmitter is the pipeline's view of the tracker: it admits states into
// an open transaction, holding their sessions, and releases them when the
// transaction ends; on an abort it also retracts them, so the state can be
// published later by a poll or a redelivered webhook. One transaction at a
// time (the pipeline's model).
type TxnAdmitter struct {
	Tracker *Tracker
	Holds   *Holds

	mu      sync.Mutex
	pending []Version
}

// Admit admits st if it is newer than the last published state of its
// session and holds the session until TransactionEnded. It first waits for
// the session's plain publishes in flight; when they outlive ctx it admits
// nothing (the reconciler publishes the state later).
func (a *TxnAdmitter) Admit(ctx context.Context, st *codec.SessionState) bool {
	v := VersionOf(st)
	if ok, _ := a.Holds.AdmitAndHold(ctx, v.SessionID, func() bool { return a.Tracker.AdmitVersion(v) }); !ok {
		return false
	}
	a.mu.Lock()
	a.pending = append(a.pending, v)
	a.mu.Unlock()
	return true
}

// TransactionEnded releases the sessions held by the transaction; aborted
// means the transaction certainly did not commit.
func (a *TxnAdmitter) TransactionEnded(aborted bool) {
	a.mu.Lock()
	pending := a.pending
	a.pending = nil
	a.mu.Unlock()
	ids := make([]string, 0, len(pending))
	for _, v := range pending {
		if aborted {
			a.Tracker.Retract(v)
		}
		ids = append(ids, v.SessionID)
	}
	a.Holds.Release(ids...)
}
