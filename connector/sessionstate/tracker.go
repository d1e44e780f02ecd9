package sessionstate

import (
	"container/list"
	"errors"
	"fmt"
	"sync"
	"time"
)

// TrackerConfig bounds the memory of a Tracker.
type TrackerConfig struct {
	// MaxSessions is the number of sessions remembered; the least recently
	// admitted is forgotten first. Default 100000.
	MaxSessions int
	// TTL forgets a session this long after its last admitted snapshot.
	// Default 72h: webhooks are retried for 30 minutes and polls follow
	// updated_at, so older replays are rare; a forgotten session admits its
	// next snapshot whatever its age.
	TTL time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
}

func (c *TrackerConfig) defaults() {
	if c.MaxSessions == 0 {
		c.MaxSessions = 100000
	}
	if c.TTL == 0 {
		c.TTL = 72 * time.Hour
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Validate reports every invalid field at once.
func (c TrackerConfig) Validate() error {
	var errs []error
	if c.MaxSessions < 0 {
		errs = append(errs, fmt.Errorf("MaxSessions: %d is negative", c.MaxSessions))
	}
	if c.TTL < 0 {
		errs = append(errs, fmt.Errorf("TTL: %s is negative", c.TTL))
	}
	return errors.Join(errs...)
}

// Tracker remembers the newest snapshot version admitted per session so a
// late, older snapshot (a replayed webhook, a slow poll) is never published
// after a newer one. It is safe for concurrent use. Memory is bounded by an
// LRU of MaxSessions entries that also expire after TTL.
//
// A Tracker is per process: two replicas each have their own, so the
// sessions topic is monotonic per replica. Consumers that need a strict
// order across replicas compare updated_at, which every record carries.
type Tracker struct {
	cfg   TrackerConfig
	mu    sync.Mutex
	lru   *list.List // front = most recently admitted; values *trackEntry
	index map[string]*list.Element
}

type trackEntry struct {
	v       Version
	prev    Version // the version v replaced, for Retract
	hasPrev bool
	at      time.Time
}

// NewTracker returns a Tracker with cfg's defaults filled in.
func NewTracker(cfg TrackerConfig) (*Tracker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("session tracker config: %w", err)
	}
	cfg.defaults()
	return &Tracker{cfg: cfg, lru: list.New(), index: make(map[string]*list.Element)}, nil
}

// AdmitVersion records v and returns true when v is newer than the last
// version admitted for its session (or the session is not remembered).
func (t *Tracker) AdmitVersion(v Version) bool {
	now := t.cfg.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if el, ok := t.index[v.SessionID]; ok {
		e := el.Value.(*trackEntry)
		if now.Sub(e.at) <= t.cfg.TTL && !Newer(v, e.v) {
			return false
		}
		e.prev, e.hasPrev = e.v, true
		e.v, e.at = v, now
		t.lru.MoveToFront(el)
		return true
	}
	t.index[v.SessionID] = t.lru.PushFront(&trackEntry{v: v, at: now})
	t.evict(now)
	return true
}

// Retract takes back v when its publish failed, so a later snapshot of the
// same version (a poll, a redelivery) is not refused as already published.
// It restores the version v replaced, or forgets the session; it does
// nothing when a newer version was admitted meanwhile.
func (t *Tracker) Retract(v Version) {
	t.mu.Lock()
	defer t.mu.Unlock()
	el, ok := t.index[v.SessionID]
	if !ok {
		return
	}
	e := el.Value.(*trackEntry)
	if Newer(e.v, v) || Newer(v, e.v) {
		return
	}
	if e.hasPrev {
		e.v, e.hasPrev = e.prev, false
		return
	}
	t.lru.Remove(el)
	delete(t.index, v.SessionID)
}

// Latest returns the last version admitted for a session.
func (t *Tracker) Latest(sessionID string) (Version, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	el, ok := t.index[sessionID]
	if !ok || t.cfg.Now().Sub(el.Value.(*trackEntry).at) > t.cfg.TTL {
		return Version{}, false
	}
	return el.Value.(*trackEntry).v, true
}

// IsLatest reports whether v is still the newest version admitted for its
// session: a record held back by a failed publish is re-sent only then.
func (t *Tracker) IsLatest(v Version) bool {
	cur, ok := t.Latest(v.SessionID)
	return !ok || !Newer(cur, v)
}

// Len returns the number of sessions remembered.
func (t *Tracker) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lru.Len()
}

// evict drops entries beyond MaxSessions and expired entries at the tail.
func (t *Tracker) evict(now time.Time) {
	for el := t.lru.Back(); el != nil; el = t.lru.Back() {
		e := el.Value.(*trackEntry)
		if t.lru.Len() <= t.cfg.MaxSessions && now.Sub(e.at) <= t.cfg.TTL {
			return
		}
		t.lru.Remove(el)
		delete(t.index, e.v.SessionID)
	}
}
