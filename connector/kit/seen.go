package kit

import (
	"container/list"
	"errors"
	"fmt"
	"sync"
	"time"
)

// SeenConfig bounds the memory of a Seen.
type SeenConfig struct {
	// MaxEntries is the number of event ids remembered; the oldest is
	// forgotten first. Default 100000.
	MaxEntries int
	// TTL forgets an event id this long after it was first seen. Default
	// 25h: the service retries a webhook for 30 minutes, and the connector
	// may publish a redelivered webhook again within its own dedupe window
	// (24h).
	TTL time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Validate reports every invalid field at once.
func (c SeenConfig) Validate() error {
	var errs []error
	if c.MaxEntries < 0 {
		errs = append(errs, fmt.Errorf("MaxEntries: %d is negative", c.MaxEntries))
	}
	if c.TTL < 0 {
		errs = append(errs, fmt.Errorf("TTL: %s is negative", c.TTL))
	}
	return errors.Join(errs...)
}

// Seen dedupes webhook events by event id (WebhookEvent.EventID, also the
// header HeaderEventID): the same webhook may be published more than once
// (a redelivery to another replica, a replay after a restart), always with
// the same event id. It is safe for concurrent use.
type Seen struct {
	cfg   SeenConfig
	mu    sync.Mutex
	lru   *list.List // front = newest; values seenEntry
	index map[string]*list.Element
}

type seenEntry struct {
	id string
	at time.Time
}

// NewSeen returns an empty Seen.
func NewSeen(cfg SeenConfig) (*Seen, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("kit seen: %w", err)
	}
	if cfg.MaxEntries == 0 {
		cfg.MaxEntries = 100000
	}
	if cfg.TTL == 0 {
		cfg.TTL = 25 * time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Seen{cfg: cfg, lru: list.New(), index: map[string]*list.Element{}}, nil
}

// First reports whether eventID is seen for the first time within TTL, and
// remembers it: act on an event only when First returns true.
func (s *Seen) First(eventID string) bool {
	now := s.cfg.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	if _, ok := s.index[eventID]; ok {
		return false
	}
	s.index[eventID] = s.lru.PushFront(seenEntry{id: eventID, at: now})
	for s.lru.Len() > s.cfg.MaxEntries {
		s.drop(s.lru.Back())
	}
	return true
}

// Len returns the number of event ids remembered.
func (s *Seen) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(s.cfg.Now())
	return s.lru.Len()
}

func (s *Seen) expire(now time.Time) {
	for el := s.lru.Back(); el != nil && now.Sub(el.Value.(seenEntry).at) >= s.cfg.TTL; el = s.lru.Back() {
		s.drop(el)
	}
}

func (s *Seen) drop(el *list.Element) {
	s.lru.Remove(el)
	delete(s.index, el.Value.(seenEntry).id)
}
