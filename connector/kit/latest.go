package kit

import (
	"sync"

	"github.com/paysession/paysession/connector/sessionstate"
)

// Latest keeps the newest state of each session, as the README asks every
// consumer of the sessions topic to: records of one session may arrive out
// of order (a webhook to one replica, a poll on another), so the last record
// read is not always the newest. Newer means a later updated_at, then a
// higher status rank (created < in progress < pending < final), then more
// progress of operations and refunds: sessionstate.Newer, the rule the
// connector itself orders states by. It is safe for concurrent use.
//
// Memory grows with the sessions kept; Forget a session once it is settled
// and booked.
type Latest struct {
	mu     sync.Mutex
	states map[string]*SessionState
}

// NewLatest returns an empty Latest.
func NewLatest() *Latest { return &Latest{states: map[string]*SessionState{}} }

// Offer keeps s when it is strictly newer than the state held for its
// session (or the first one), and reports whether it did. A state equal to
// or older than the one held is dropped: acting on it again would repeat
// or undo what the newer one did.
func (l *Latest) Offer(s *SessionState) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	held, ok := l.states[s.Session.ID]
	if ok && !sessionstate.Newer(sessionstate.VersionOf(s), sessionstate.VersionOf(held)) {
		return false
	}
	l.states[s.Session.ID] = s
	return true
}

// Get returns the newest state held for session id.
func (l *Latest) Get(id string) (*SessionState, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.states[id]
	return s, ok
}

// Forget drops the state of session id.
func (l *Latest) Forget(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.states, id)
}

// Len returns the number of sessions held.
func (l *Latest) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.states)
}

// IsFinal reports whether a session status is final (accepted, succeeded,
// failed, canceled, declined, rejected, expired): only refunds and
// chargebacks change such a session.
func IsFinal(status string) bool { return sessionstate.IsFinal(status) }
