package ingress

import (
	"container/list"
	"sync"
	"time"
)

// deliveries remembers webhooks by event id: those being published (so a
// redelivery waits for the first attempt instead of producing twice), those
// published (answered 200 again without publishing) and those that failed
// (retried with only the records Kafka did not take). Bounded by maxEntries
// and ttl; oldest first out.
type deliveries struct {
	mu         sync.Mutex
	ttl        time.Duration
	maxEntries int
	lru        *list.List // front = newest; values *delivery
	index      map[string]*list.Element
}

func newDeliveries(ttl time.Duration, maxEntries int) *deliveries {
	return &deliveries{ttl: ttl, maxEntries: maxEntries, lru: list.New(), index: make(map[string]*list.Element)}
}

// getOrCreate returns the delivery of eventID, creating it with mk when the
// id is unknown or expired; created reports which.
func (d *deliveries) getOrCreate(eventID string, now time.Time, mk func() *delivery) (dl *delivery, created bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if el, ok := d.index[eventID]; ok {
		dl := el.Value.(*delivery)
		if now.Sub(dl.created) <= d.ttl {
			return dl, false
		}
		d.lru.Remove(el)
		delete(d.index, eventID)
	}
	dl = mk()
	dl.eventID, dl.created = eventID, now
	d.index[eventID] = d.lru.PushFront(dl)
	for el := d.lru.Back(); el != nil && (d.lru.Len() > d.maxEntries || now.Sub(el.Value.(*delivery).created) > d.ttl); el = d.lru.Back() {
		d.lru.Remove(el)
		delete(d.index, el.Value.(*delivery).eventID)
	}
	return dl, true
}

// len returns the number of remembered event ids.
func (d *deliveries) len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lru.Len()
}
