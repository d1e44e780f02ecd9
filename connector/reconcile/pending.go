package reconcile

import (
	"sync"
	"time"

	"github.com/paysession/paysession/internal/codec"
)

// entry is what the reconciler knows of one session of its partitions.
type entry struct {
	id        string
	partition int32
	version   codec.SessionVersion
	state     *codec.SessionState
	project   *string // the partner project of the session (nil: unknown, the default), kept across states
	// lastRecord is the timestamp of the newest record of the session read
	// or published, newer state or not: the session is forgotten once it
	// falls behind the horizon (see forget).
	lastRecord time.Time

	born         time.Time // what its age counts from: the earliest of created_at and every observed_at read
	stale        bool      // older than MaxAge and marked so on the topic: never due again
	nextPoll     time.Time // when it is due (quiet since its last state, or backing off)
	misses       int       // polls in a row that failed or found nothing new
	confirmSince time.Time // when it started waiting for session/confirm; zero if not waiting
	warned       bool      // deadline warning published for this wait
	answered     string    // the last auto-confirm key the service answered: not sent again
	busy         bool      // an API call is in flight
}

// action is what a due session needs.
type action int

const (
	actPoll action = iota
	actWarn
	actConfirm
	actStale // older than MaxAge: publish the stale marker instead of polling
)

// task is a due session handed to a worker: a copy, not the entry.
type task struct {
	id        string
	partition int32
	act       action
	state     *codec.SessionState
	project   *string // the session's partner project: every call and state of the task names it
	deadline  time.Time
	born      time.Time
}

// pendingSet holds the latest state of every session of the assigned
// partitions.
type pendingSet struct {
	mu      sync.Mutex
	policy  ConfirmPolicy
	quiet   time.Duration
	maxAge  time.Duration // 0: no age limit
	entries map[string]*entry
}

func newPendingSet(policy ConfirmPolicy, quiet, maxAge time.Duration) *pendingSet {
	return &pendingSet{policy: policy, quiet: quiet, maxAge: maxAge, entries: make(map[string]*entry)}
}

// apply records a state read from the topic or just published in a record
// stamped at, when it is newer than what the set holds. It reports whether
// it was. The record counts as the session's last (see forget) when it is
// stamped later than any before, whether its state is newer or not.
//
// The session's project is kept apart from its state: a session lives in
// one project for ever, but a state may not name it (one written before
// states named projects, or proposed by a part that did not know it) and
// the session writer writes the newest state as it came. So a project, once
// read in any state of the session, older ones too, stays until a state
// names another.
func (p *pendingSet) apply(st *codec.SessionState, partition int32, at time.Time) bool {
	v := codec.VersionOf(st)
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.entries[v.SessionID]
	if !ok {
		e = &entry{id: v.SessionID}
		p.entries[v.SessionID] = e
	}
	var created time.Time
	if st.Session.CreatedAt != nil {
		created = *st.Session.CreatedAt
	}
	e.born = earliest(e.born, st.ObservedAt, created)
	if at.After(e.lastRecord) {
		e.lastRecord = at
	}
	if st.Project != nil && *st.Project != "" && (e.project == nil || codec.Newer(v, e.version)) {
		e.project = st.Project
	}
	if ok && !codec.Newer(v, e.version) {
		e.partition = partition
		return false
	}
	if Settled(&st.Session) {
		// Settled sessions are forgotten, so memory follows the open
		// sessions. An older state read after it (another writer's late
		// record) re-opens the session for one poll, which republishes the
		// final state: a duplicate, never a step back.
		delete(p.entries, v.SessionID)
		return true
	}
	e.partition, e.version, e.misses = partition, v, 0
	e.state = st
	e.nextPoll = st.ObservedAt.Add(p.quiet)
	if !WaitsForConfirm(&st.Session) {
		e.confirmSince, e.warned = time.Time{}, false
	} else if e.confirmSince.IsZero() {
		e.confirmSince = st.ObservedAt
		if st.Session.UpdatedAt != nil {
			e.confirmSince = *st.Session.UpdatedAt
		}
	}
	return true
}

// earliest returns the earliest non-zero time of ts (zero when none is).
func earliest(ts ...time.Time) time.Time {
	var first time.Time
	for _, t := range ts {
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	return first
}

// markStale records that the stale marker of version v is on the topic:
// unless the set holds a newer state of the session, the session is never
// due again while this replica holds its partition (its age only grows).
func (p *pendingSet) markStale(v codec.SessionVersion) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.entries[v.SessionID]; ok && !codec.Newer(e.version, v) {
		e.stale = true
	}
}

// Settled reports whether a session needs no more polling: its status is
// final, the service waits for nothing from the partner, and no operation
// or refund is in progress. The spec (payment-session-api.md) says why a
// final session status alone is not enough:
//
//   - "Refund status: in_progress, accepted." and "successful payment |
//     session/refund | payment succeeded | refund in_progress |
//     payment_refunded webhook after completion": a session stays
//     accepted while its refund runs, and only payment_refunded (or a
//     poll) shows the refund accepted.
//   - "held payment | session/capture | amount within the frozen amount |
//     session in_progress, payment succeeded | Response sample shows a
//     refund in_progress": a partial capture's release of the rest is a
//     refund in progress beside a succeeded payment.
//   - "operation in progress | service completes | — | operation
//     succeeded (or another final status), session accepted |
//     payment_finished webhook": the session becomes accepted when the
//     service completes, so a session still in_progress is not done even
//     when every operation shows a final status.
//   - "next_action | Present when the service waits for the partner."
//   - "Complete list of session and operation status values: not shown.":
//     a status this package does not know as final counts as in
//     progress; Config.MaxAge bounds how long such a session is polled.
func Settled(s *codec.Session) bool {
	if !codec.IsFinal(s.Status) || s.NextAction != nil {
		return false
	}
	for _, op := range s.Operations {
		if !isFinalOp(op.Status) {
			return false
		}
		for _, rf := range op.Refunds {
			if !codec.IsFinal(rf.Status) {
				return false
			}
		}
	}
	return true
}

// remove forgets a session (tombstone, or unknown to the service).
func (p *pendingSet) remove(id string) {
	p.mu.Lock()
	delete(p.entries, id)
	p.mu.Unlock()
}

// forget forgets the sessions whose last record is stamped before before,
// stale-marked ones included, and returns how many it forgot. It keeps a
// replica that runs for weeks holding what a fresh read of its partitions
// from before would give it.
func (p *pendingSet) forget(before time.Time) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for id, e := range p.entries {
		if e.lastRecord.Before(before) {
			delete(p.entries, id)
			n++
		}
	}
	return n
}

// dropPartitions forgets the sessions of partitions no longer assigned.
func (p *pendingSet) dropPartitions(parts []int32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	drop := make(map[int32]bool, len(parts))
	for _, pt := range parts {
		drop[pt] = true
	}
	for id, e := range p.entries {
		if drop[e.partition] {
			delete(p.entries, id)
		}
	}
}

// due marks busy and returns the sessions that need an action at now, at
// most limit of them.
func (p *pendingSet) due(now time.Time, limit int) []task {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []task
	for _, e := range p.entries {
		if len(out) >= limit {
			break
		}
		if e.busy || e.stale {
			continue
		}
		t := task{id: e.id, partition: e.partition, state: e.state, project: e.project, born: e.born}
		switch {
		case p.policy.AutoConfirms(&e.state.Session) && !now.Before(e.nextPoll.Add(-p.quiet)) &&
			e.answered != confirmKey(e.id, confirmTargets(&e.state.Session)):
			t.act = actConfirm // at once, then with backoff; it reads a fresh state first
		case !e.confirmSince.IsZero() && !e.warned && !now.Before(e.confirmSince.Add(p.policy.Deadline-p.policy.WarnBefore)):
			t.act, t.deadline = actWarn, e.confirmSince.Add(p.policy.Deadline)
		case !now.Before(e.nextPoll):
			t.act = actPoll
		default:
			continue
		}
		if p.maxAge > 0 && !now.Before(e.born.Add(p.maxAge)) {
			// Due for anything but too old to keep polling: mark it stale.
			t.act = actStale
		}
		e.busy = true
		out = append(out, t)
	}
	return out
}

// done ends a task: when nothing new was learned the session backs off.
func (p *pendingSet) done(t task, now time.Time, learned bool, backoff func(int) time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.entries[t.id]
	if !ok {
		return
	}
	e.busy = false
	switch t.act {
	case actWarn:
		e.warned = true
	case actStale:
		e.stale = learned // learned: the marker is on the topic
	}
	if !learned {
		e.misses++
		e.nextPoll = now.Add(backoff(e.misses))
	}
}

// answer records that the service answered the auto-confirm sent under
// key, so the same operations are not confirmed again from this entry.
func (p *pendingSet) answer(id, key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.entries[id]; ok {
		e.answered = key
	}
}

// answered reports whether the service already answered the auto-confirm
// sent under key for the session.
func (p *pendingSet) answered(id, key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.entries[id]
	return ok && e.answered == key
}

// open returns the number of sessions held: those not settled.
func (p *pendingSet) open() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.entries)
}
