package kit

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/paysession/paysession/internal/codec"
)

// NoHorizon as LatestConfig.Horizon refuses no state for its age (it is
// the longest time.Duration, some 292 years): only MaxSessions, then
// required, bounds the memory of the Latest.
const NoHorizon time.Duration = math.MaxInt64

// LatestConfig bounds the memory of a Latest.
type LatestConfig struct {
	// Horizon is how long a session is remembered after the updated_at of
	// its newest state, and how old a state of a session not held may be
	// and still be kept. Default codec.DefaultHorizon (7 days), the
	// connector's own; it must exceed the consumer's lag behind the
	// connector (see Latest).
	Horizon time.Duration
	// MaxSessions is the most sessions held; past it the session with the
	// oldest updated_at is forgotten first. Default 0: no bound but the
	// Horizon. Required with Horizon NoHorizon.
	MaxSessions int
	// Now is the clock the horizon is measured on; default time.Now.
	Now func() time.Time
}

// Validate reports every invalid field at once.
func (c LatestConfig) Validate() error {
	var errs []error
	if c.Horizon < 0 {
		errs = append(errs, fmt.Errorf("Horizon: %s is negative", c.Horizon))
	}
	if c.MaxSessions < 0 {
		errs = append(errs, fmt.Errorf("MaxSessions: %d is negative", c.MaxSessions))
	}
	if c.Horizon == NoHorizon && c.MaxSessions == 0 {
		errs = append(errs, errors.New("MaxSessions: required with Horizon NoHorizon, or memory grows with every session ever read"))
	}
	return errors.Join(errs...)
}

// Latest keeps the newest state of each session, as schemas/README.md asks every
// consumer of the sessions topic to: records of one session may arrive out
// of order (a webhook to one replica, a poll on another), so the last record
// read is not always the newest. Newer means a later updated_at, then a
// higher status rank (created < in progress < pending < final), then more
// progress of operations and refunds: codec.Newer, the rule the
// connector itself orders states by. It is safe for concurrent use.
//
// Like the connector (see codec's session_horizon.go), it remembers a session
// only while the updated_at of its newest state is within the horizon
// (LatestConfig.Horizon, default 7 days) of now, and holds at most
// MaxSessions sessions, forgetting the oldest updated_at first. Offer
// guarantees:
//
//   - For a session held, a state is kept when it is strictly newer than
//     the one held, and only then.
//   - For a session not held (never seen, or forgotten), a state is kept
//     when its updated_at is within the horizon and later than that of
//     every state the Latest has let go of (by the horizon or by
//     MaxSessions); otherwise it is refused as stale, and so is a state
//     without updated_at. A chargeback weeks after the payment is a new
//     state, updated then, and is kept.
//
// So a session never moves backwards and no state is kept twice, however
// much was forgotten, unless the caller calls Forget. The price is the
// other way: a state older than the horizon, or than what MaxSessions let
// go of, is refused even when the consumer has never seen it. The connector
// writes a state within its own horizon of its updated_at (most within
// seconds), so a consumer reading L behind the connector refuses a state new
// to it only when the connector wrote it more than Horizon − L after its
// updated_at: keep Horizon well above the longest lag expected, and for a
// consumer that builds its books from the start of the topic, use NoHorizon
// with MaxSessions.
//
// Memory: the Latest takes 110 to 130 bytes per session held
// (BenchmarkLatestMemory), and holds the states offered: about 900 bytes
// for a decoded state with one operation. Count 1 KiB per session: the
// sessions updated in a horizon (7 days) with the defaults, MaxSessions at
// most. Go maps do not shrink, so after a peak the map keeps its size.
// Offer and Forget take O(log n) time for n sessions held, Get and Len
// O(1); each call also forgets the sessions past the horizon, O(log n)
// each.
type Latest struct {
	horizon time.Duration
	max     int
	now     func() time.Time

	mu     sync.Mutex
	states map[string]*held // session id -> its newest state
	byAge  heldHeap         // the same, oldest updated_at first
	// floor is the latest updated_at of the states let go by the horizon
	// or MaxSessions: a state of a session not held must be later.
	floor time.Time
}

// held is a session's newest state, placed in the age heap.
type held struct {
	id      string
	state   *SessionState
	updated time.Time // state's updated_at, as of Offer
	index   int       // in Latest.byAge
}

// NewLatest returns an empty Latest with the default LatestConfig: a 7-day
// horizon on time.Now and no other bound.
func NewLatest() *Latest {
	l, err := NewLatestWith(LatestConfig{})
	if err != nil {
		panic(err) // the defaults are valid
	}
	return l
}

// NewLatestWith returns an empty Latest bounded by cfg.
func NewLatestWith(cfg LatestConfig) (*Latest, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("kit latest: %w", err)
	}
	if cfg.Horizon == 0 {
		cfg.Horizon = codec.DefaultHorizon
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Latest{horizon: cfg.Horizon, max: cfg.MaxSessions, now: cfg.Now, states: map[string]*held{}}, nil
}

// Offer keeps s when it is strictly newer than the state held for its
// session, or, for a session not held, when it is not stale (see Latest),
// and reports whether it did. A state not kept is dropped: acting on it
// again would repeat or undo what a newer one did.
func (l *Latest) Offer(s *SessionState) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.expire(now)
	v := codec.VersionOf(s)
	if h, ok := l.states[s.Session.ID]; ok {
		if !codec.Newer(v, codec.VersionOf(h.state)) {
			return false
		}
		h.state, h.updated = s, v.UpdatedAt
		heap.Fix(&l.byAge, h.index) // updated_at never decreases
		return true
	}
	if !codec.WithinHorizon(v.UpdatedAt, now, l.horizon) || !v.UpdatedAt.After(l.floor) {
		return false
	}
	h := &held{id: s.Session.ID, state: s, updated: v.UpdatedAt}
	l.states[h.id] = h
	heap.Push(&l.byAge, h)
	for l.max > 0 && len(l.states) > l.max {
		l.letGo(heap.Pop(&l.byAge).(*held)) // may be s itself, the oldest
	}
	return true
}

// Get returns the newest state held for session id.
func (l *Latest) Get(id string) (*SessionState, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.expire(l.now())
	if h, ok := l.states[id]; ok {
		return h.state, true
	}
	return nil, false
}

// Forget drops the state of session id. Unlike what the horizon forgets,
// a session forgotten this way may be moved backwards: any later Offer of
// it within the horizon is kept, even of an older state. Forget only a
// session no record of which will be read again.
func (l *Latest) Forget(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if h, ok := l.states[id]; ok {
		heap.Remove(&l.byAge, h.index)
		delete(l.states, id)
	}
}

// Len returns the number of sessions held.
func (l *Latest) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.expire(l.now())
	return len(l.states)
}

// expire lets go of the sessions whose newest state is older than the
// horizon at now.
func (l *Latest) expire(now time.Time) {
	cutoff := now.Add(-l.horizon)
	for len(l.byAge) > 0 && l.byAge[0].updated.Before(cutoff) {
		l.letGo(heap.Pop(&l.byAge).(*held))
	}
}

// letGo forgets h, already out of the heap, and raises the floor.
func (l *Latest) letGo(h *held) {
	delete(l.states, h.id)
	if h.updated.After(l.floor) {
		l.floor = h.updated
	}
}

// heldHeap is a container/heap of held sessions, oldest updated_at first.
type heldHeap []*held

func (q heldHeap) Len() int           { return len(q) }
func (q heldHeap) Less(i, j int) bool { return q[i].updated.Before(q[j].updated) }
func (q heldHeap) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index, q[j].index = i, j
}
func (q *heldHeap) Push(x any) { h := x.(*held); h.index = len(*q); *q = append(*q, h) }
func (q *heldHeap) Pop() any {
	old := *q
	h := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return h
}

// IsFinal reports whether a session status is final (accepted, succeeded,
// failed, canceled, declined, rejected, expired): only refunds and
// chargebacks change such a session.
func IsFinal(status string) bool { return codec.IsFinal(status) }
