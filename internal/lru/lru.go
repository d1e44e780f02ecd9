// Package lru is a map bounded by size and by age: an entry lives for a
// TTL from when it was added, and past the size the oldest goes first. The
// webhook ingress remembers deliveries by event id in one, and the kit's
// Seen remembers event ids in one.
package lru

import (
	"container/list"
	"iter"
	"sync"
	"time"
)

// Cache maps keys to values for at most TTL each (an entry added at t lives
// in [t, t+TTL)) and holds at most MaxEntries of them, dropping the oldest
// first. It is safe for concurrent use.
type Cache[K comparable, V any] struct {
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

// New returns an empty cache of at most maxEntries entries, each kept for
// ttl.
func New[K comparable, V any](maxEntries int, ttl time.Duration) *Cache[K, V] {
	return &Cache[K, V]{ttl: ttl, maxEntries: maxEntries, order: list.New(), index: make(map[K]*list.Element)}
}

// GetOrAdd returns the value of key when it was added within the TTL before
// now; otherwise it adds mk() as of now and returns it with added true.
func (c *Cache[K, V]) GetOrAdd(key K, now time.Time, mk func() V) (v V, added bool) {
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
// cache may change while they are read).
func (c *Cache[K, V]) All(now time.Time) iter.Seq2[K, V] {
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
func (c *Cache[K, V]) Len(now time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	return c.order.Len()
}

// expire drops the entries whose TTL has run out at now (the oldest are at
// the back).
func (c *Cache[K, V]) expire(now time.Time) {
	for el := c.order.Back(); el != nil && now.Sub(el.Value.(*entry[K, V]).added) >= c.ttl; el = c.order.Back() {
		c.drop(el)
	}
}

func (c *Cache[K, V]) drop(el *list.Element) {
	c.order.Remove(el)
	delete(c.index, el.Value.(*entry[K, V]).key)
}

// Get returns the value of key when it was added within the TTL before
// now.
func (c *Cache[K, V]) Get(key K, now time.Time) (v V, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	if el, ok := c.index[key]; ok {
		return el.Value.(*entry[K, V]).value, true
	}
	return v, false
}
