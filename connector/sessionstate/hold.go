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
	mu       sync.Mutex
	held     map[string]int // open transactions holding the session
	freed    map[string]chan struct{}
	inFlight map[string]int // plain publishes not yet acknowledged
	landed   map[string]chan struct{}
}

// NewHolds returns an empty set of holds.
func NewHolds() *Holds {
	return &Holds{held: map[string]int{}, freed: map[string]chan struct{}{},
		inFlight: map[string]int{}, landed: map[string]chan struct{}{}}
}

// AdmitAndHold waits until session id has no plain publish in flight, then
// calls admit and, when it returns true, holds id until Release. admit runs
// under the lock that Do also takes, so a state admitted here and one
// admitted in Do are never interleaved. It returns ctx's error (admit has not
// run) when an in-flight publish outlives ctx.
func (h *Holds) AdmitAndHold(ctx context.Context, id string, admit func() bool) (bool, error) {
	for {
		h.mu.Lock()
		if ch, busy := h.landed[id]; busy {
			h.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return false, ctx.Err()
			}
		}
		defer h.mu.Unlock()
		if !admit() {
			return false, nil
		}
		if h.held[id] == 0 {
			h.freed[id] = make(chan struct{})
		}
		h.held[id]++
		return true, nil
	}
}

// Release drops one hold of each id (call it once per successful
// AdmitAndHold, after the transaction ended, committed or not).
func (h *Holds) Release(ids ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, id := range ids {
		drop(h.held, h.freed, id)
	}
}

// drop decrements count[id] and closes its channel at zero.
func drop(count map[string]int, chans map[string]chan struct{}, id string) {
	if count[id] == 0 {
		return
	}
	if count[id]--; count[id] == 0 {
		delete(count, id)
		close(chans[id])
		delete(chans, id)
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
	for {
		h.mu.Lock()
		ch, held := h.freed[id]
		if !held {
			break
		}
		h.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	defer h.mu.Unlock()
	if !fn() {
		return nil, nil
	}
	if h.inFlight[id] == 0 {
		h.landed[id] = make(chan struct{})
	}
	h.inFlight[id]++
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			drop(h.inFlight, h.landed, id)
			h.mu.Unlock()
		})
	}, nil
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
