package sessionwriter

import (
	"sync"
	"time"

	"github.com/paysession/paysession/internal/codec"
)

// partition is what the writer knows of one owned partition: the stamp of
// the last state written for each session written within the horizon,
// and the event ids written in the last event window.
type partition struct {
	// mu orders the writer's changes of versions against SessionProject's
	// reads from other goroutines; the writer's own loop reads without it.
	mu       sync.RWMutex
	versions sessionMap[remembered]
	traces   sessionMap[sessionTrace] // a session's trace (trace.go); only while tracing is on
	events   eventSet
}

func newPartition() *partition {
	return &partition{versions: newSessionMap[remembered](), traces: newSessionMap[sessionTrace](), events: newEventSet()}
}

// version returns the last version written of session id, unless it was
// written before forget (Unix ms): a session quiet that long is forgotten,
// as a takeover at this moment would not read it, whether or not the sweep
// has deleted it yet.
func (p *partition) version(id string, forget int64) (remembered, bool) {
	r, ok := p.versions.get(id)
	if !ok || r.wrote < forget {
		return remembered{}, false
	}
	return r, true
}

// sweep deletes the sessions written before forget and the event ids
// written before events (both Unix ms).
func (p *partition) sweep(forget, events int64) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := sweep(&p.versions, &p.traces, func(r remembered) bool { return r.wrote < forget })
	p.events.sweep(events)
	return n
}

// index holds the partitions this writer owns. The poll loop reads and
// changes them; the group's revoke callbacks drop them, so a mutex guards
// the map (not the partitions: only the poll loop touches those).
type index struct {
	mu    sync.Mutex
	parts map[int32]*partition
	swept time.Time // when the partitions were last swept
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

// sessions returns the number of sessions held across partitions.
func (x *index) sessions() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := 0
	for _, p := range x.parts {
		n += p.versions.len()
	}
	return n
}

// sweepEvery is the least time between two sweeps of the index: between
// them, forgotten sessions and expired event ids cost memory but are
// already treated as gone (partition.version, eventSet.seen).
const sweepEvery = time.Minute

// sweep deletes, at most once per sweepEvery, what every partition holds
// of sessions written before forget and of event ids written before
// events; it returns the number of sessions deleted.
func (x *index) sweep(now time.Time, forget, events int64) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	if now.Sub(x.swept) < sweepEvery && !now.Before(x.swept) {
		return 0
	}
	x.swept = now
	n := 0
	for _, p := range x.parts {
		n += p.sweep(forget, events)
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
	prev remembered
	had  bool
}

type eventChange struct {
	part *partition
	id   string
}

// setVersion sets the version of session id, journaled.
func (j *journal) setVersion(p *partition, id string, r remembered) {
	prev, had := p.versions.get(id)
	j.versions = append(j.versions, versionChange{p, id, prev, had})
	p.mu.Lock()
	p.versions.set(id, r)
	p.mu.Unlock()
}

// addEvent remembers event id, journaled.
func (j *journal) addEvent(p *partition, id string, at int64) {
	j.events = append(j.events, eventChange{p, id})
	p.events.add(id, at)
}

// undo takes back every change, newest first.
func (j *journal) undo() {
	for i := len(j.versions) - 1; i >= 0; i-- {
		c := j.versions[i]
		c.part.mu.Lock()
		if c.had {
			c.part.versions.set(c.id, c.prev)
		} else {
			c.part.versions.del(c.id)
			c.part.traces.del(c.id)
		}
		c.part.mu.Unlock()
	}
	j.undoTraces()
	for _, c := range j.events {
		c.part.events.del(c.id)
	}
	*j = journal{}
}

// stampOf returns the remembered form of a version written at wrote, of
// a session of project.
func stampOf(v codec.SessionVersion, wrote time.Time, project projectRef) remembered {
	return remembered{stamp: v.Stamp(), wrote: wrote.UnixMilli(), project: project}
}
