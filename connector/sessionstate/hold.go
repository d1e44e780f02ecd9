package sessionstate

import (
	"context"
	"sync"

	"github.com/paysession/paysession/internal/codec"
)

// Holds orders the sessions topic between a transactional and a plain
// producer of the same process. The pipeline publishes session states inside
// a Kafka transaction: they become visible only at commit. A webhook state
// published meanwhile by the (non-transactional) ingress would land before
// them although it is newer, and the topic would end on the older state.
// So the pipeline holds a session from admitting its state until the
// transaction ends, and the ingress admits and starts publishing a state of
// that session only once no hold is left.
type Holds struct {
	mu    sync.Mutex
	held  map[string]int
	freed map[string]chan struct{}
}

// NewHolds returns an empty set of holds.
func NewHolds() *Holds {
	return &Holds{held: map[string]int{}, freed: map[string]chan struct{}{}}
}

// AdmitAndHold calls admit and, when it returns true, holds session id
// until Release. admit runs under the lock that Do also takes, so a state
// admitted here and one admitted in Do are never interleaved.
func (h *Holds) AdmitAndHold(id string, admit func() bool) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !admit() {
		return false
	}
	if h.held[id] == 0 {
		h.freed[id] = make(chan struct{})
	}
	h.held[id]++
	return true
}

// Release drops one hold of each id (call it once per successful
// AdmitAndHold, after the transaction ended, committed or not).
func (h *Holds) Release(ids ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, id := range ids {
		if h.held[id] == 0 {
			continue
		}
		if h.held[id]--; h.held[id] == 0 {
			delete(h.held, id)
			close(h.freed[id])
			delete(h.freed, id)
		}
	}
}

// Do waits until session id is not held, then runs fn under the lock, so
// no hold can start while fn admits and starts publishing. fn must be
// quick (it must not wait for Kafka). Do returns ctx's error when the hold
// outlives ctx; fn has not run then.
func (h *Holds) Do(ctx context.Context, id string, fn func()) error {
	for {
		h.mu.Lock()
		ch, held := h.freed[id]
		if !held {
			fn()
			h.mu.Unlock()
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
// session and holds the session until TransactionEnded.
func (a *TxnAdmitter) Admit(st *codec.SessionState) bool {
	v := VersionOf(st)
	if !a.Holds.AdmitAndHold(v.SessionID, func() bool { return a.Tracker.AdmitVersion(v) }) {
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
