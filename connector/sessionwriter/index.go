package sessionwriter

import (
	"sync"
	"time"

	"github.com/paysession/paysession/connector/sessionstate"
)

// partition is what the writer knows of one owned partition: the version
// of the last state written for each of its sessions, and the event ids
// written in the last event window.
type partition struct {
	versions map[string]sessionstate.Version
	traces   map[string]sessionTrace // session id → its trace (trace.go); only while tracing is on
	events   map[string]time.Time    // event id → when it was written
	order    []eventAt               // the same ids, oldest first, for expiry
}

type eventAt struct {
	id string
	at time.Time
}

func newPartition() *partition {
	return &partition{versions: map[string]sessionstate.Version{}, traces: map[string]sessionTrace{}, events: map[string]time.Time{}}
}

// addEvent remembers an event id written at at.
func (p *partition) addEvent(id string, at time.Time) {
	if _, ok := p.events[id]; ok {
		return
	}
	p.events[id] = at
	p.order = append(p.order, eventAt{id, at})
}

// expire forgets event ids written before cutoff.
func (p *partition) expire(cutoff time.Time) {
	i := 0
	for ; i < len(p.order) && p.order[i].at.Before(cutoff); i++ {
		if at, ok := p.events[p.order[i].id]; ok && at.Equal(p.order[i].at) {
			delete(p.events, p.order[i].id)
		}
	}
	if i > 0 {
		p.order = append(p.order[:0:0], p.order[i:]...)
	}
}

// index holds the partitions this writer owns. The poll loop reads and
// changes them; the group's revoke callbacks drop them, so a mutex guards
// the map (not the partitions: only the poll loop touches those).
type index struct {
	mu    sync.Mutex
	parts map[int32]*partition
}

func newIndex() *index { return &index{parts: map[int32]*partition{}} }

func (x *index) get(p int32) *partition {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.parts[p]
}

func (x *index) set(p int32, part *partition) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.parts[p] = part
}

// drop forgets partitions (revoked or lost: another writer may write them
// now, so they are read again before this one writes them next).
func (x *index) drop(ps ...int32) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, p := range ps {
		delete(x.parts, p)
	}
}

// dropAll forgets every partition (a transaction whose end is unknown).
func (x *index) dropAll() {
	x.mu.Lock()
	defer x.mu.Unlock()
	clear(x.parts)
}

// sessions returns the number of sessions known across partitions.
func (x *index) sessions() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := 0
	for _, p := range x.parts {
		n += len(p.versions)
	}
	return n
}

// journal records what one transaction changed in the index, so an abort
// can take it back: the transaction's records are then not on the topics,
// and the updates are consumed again.
type journal struct {
	versions []versionChange
	traces   []traceChange
	events   []eventChange
}

type versionChange struct {
	part *partition
	id   string
	prev sessionstate.Version
	had  bool
}

type eventChange struct {
	part *partition
	id   string
}

// setVersion sets the version of session id, journaled.
func (j *journal) setVersion(p *partition, id string, v sessionstate.Version) {
	prev, had := p.versions[id]
	j.versions = append(j.versions, versionChange{p, id, prev, had})
	p.versions[id] = v
}

// addEvent remembers event id, journaled.
func (j *journal) addEvent(p *partition, id string, at time.Time) {
	j.events = append(j.events, eventChange{p, id})
	p.addEvent(id, at)
}

// undo takes back every change, newest first.
func (j *journal) undo() {
	for i := len(j.versions) - 1; i >= 0; i-- {
		c := j.versions[i]
		if c.had {
			c.part.versions[c.id] = c.prev
		} else {
			delete(c.part.versions, c.id)
			delete(c.part.traces, c.id)
		}
	}
	j.undoTraces()
	for _, c := range j.events {
		delete(c.part.events, c.id) // its order entry expires on its own
	}
	*j = journal{}
}

// expire forgets event ids written before cutoff in every partition.
func (x *index) expire(cutoff time.Time) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, p := range x.parts {
		p.expire(cutoff)
	}
}
