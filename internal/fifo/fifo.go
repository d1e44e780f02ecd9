// Package fifo is a first-in-first-out set with expiry: a key (each with a
// value) lives for a TTL from when it was added, and past the size the
// first added goes first. Reading a key does not renew it (it is no LRU
// cache). The webhook ingress remembers deliveries by event id in one, the
// kit's Seen remembers event ids in one, the codec the schema ids it
// refused, and the session writer the stale states it logged.
package fifo

import (
	"container/list"
	"iter"
	"sync"
	"time"
)

// Set holds keys, each with a value, for at most TTL each (a key added at t
// lives in [t, t+TTL)) and at most MaxEntries of them, dropping the first
// added first. It is safe for concurrent use.
type Set[K comparable, V any] struct {
	mu         sync.Mutex
	ttl        time.Duration
	maxEntries int
	order      *list.List // front = newest; values *entry[K, V]
	index      map[K]*list.Element
}

type entry[K comparable, V any] struct {
	key   K
	value V
	added time.Time
}

// New returns an empty set of at most maxEntries entries, each kept for
// ttl.
func New[K comparable, V any](maxEntries int, ttl time.Duration) *Set[K, V] {
	return &Set[K, V]{ttl: ttl, maxEntries: maxEntries, order: list.New(), index: make(map[K]*list.Element)}
}

// GetOrAdd returns the value of key when it was added within the TTL before
// now; otherwise it adds mk() as of now and returns it with added true.
func (c *Set[K, V]) GetOrAdd(key K, now time.Time, mk func() V) (v V, added bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	if el, ok := c.index[key]; ok {
		return el.Value.(*entry[K, V]).value, false
	}
	e := &entry[K, V]{key: key, value: mk(), added: now}
	c.index[key] = c.order.PushFront(e)
	for c.order.Len() > c.maxEntries {
		c.drop(c.order.Back())
	}
	return e.value, true
}

// All returns the entries alive at now, newest first (a snapshot: the
// set may change while they are read).
func (c *Set[K, V]) All(now time.Time) iter.Seq2[K, V] {
	c.mu.Lock()
	c.expire(now)
	live := make([]*entry[K, V], 0, c.order.Len())
	for el := c.order.Front(); el != nil; el = el.Next() {
		live = append(live, el.Value.(*entry[K, V]))
	}
	c.mu.Unlock()
	return func(yield func(K, V) bool) {
		for _, e := range live {
			if !yield(e.key, e.value) {
				return
			}
		}
	}
}

// Len returns the number of entries alive at now.
func (c *Set[K, V]) Len(now time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	return c.order.Len()
}

// expire drops the entries whose TTL has run out at now (the oldest are at
// the back).
func (c *Set[K, V]) expire(now time.Time) {
	for el := c.order.Back(); el != nil && now.Sub(el.Value.(*entry[K, V]).added) >= c.ttl; el = c.order.Back() {
		c.drop(el)
	}
}

func (c *Set[K, V]) drop(el *list.Element) {
	c.order.Remove(el)
	delete(c.index, el.Value.(*entry[K, V]).key)
}

// Get returns the value of key when it was added within the TTL before
// now.
func (c *Set[K, V]) Get(key K, now time.Time) (v V, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	if el, ok := c.index[key]; ok {
		return el.Value.(*entry[K, V]).value, true
	}
	return v, false
}
