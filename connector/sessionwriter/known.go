package sessionwriter

import (
	"strings"
	"sync"
)

// SessionProject reports whether this writer holds a state of session id
// (it owns the session's partition, has taken it over, and a state of the
// session was written within the horizon), and if so the partner project
// its states name (nil: none names one, the default project's). It is the
// webhook ingress's local lookup (connector/ingress, Config.Sessions): a
// webhook for a session held here is bound to that session's project
// without asking the service. A session this writer does not hold may
// still be one of the connector's, held by another replica's writer or not
// yet written: the ingress then asks the service (session/status). Safe
// for concurrent use with the writer's own loop.
func (w *Writer) SessionProject(id string) (project *string, known bool) {
	forget := w.cutoffs().forget
	w.index.mu.Lock()
	parts := make([]*partition, 0, len(w.index.parts))
	for _, p := range w.index.parts {
		parts = append(parts, p)
	}
	w.index.mu.Unlock()
	for _, p := range parts {
		p.mu.RLock()
		r, ok := p.version(id, forget)
		p.mu.RUnlock()
		if ok {
			return w.projects.name(r.project)
		}
	}
	return nil, false
}

// projectRef is a partner project as a session's remembered state keeps
// it: an index into the writer's projectTable.
type projectRef uint16

const (
	// noProject: no state of the session names a project (the default
	// project's session).
	noProject projectRef = 0
	// unrecordedProject: a state named a project beyond maxProjects; the
	// session counts as not held (SessionProject), so the ingress asks the
	// service.
	unrecordedProject projectRef = 1<<16 - 1
	// maxProjects bounds the table: projects are the few the connector is
	// configured with, but a record may name any.
	maxProjects = 1024
)

// projectTable interns the project ids states name, so that a remembered
// session keeps two bytes, not a string.
type projectTable struct {
	mu  sync.RWMutex
	ids []string // ids[ref-1]
	ref map[string]projectRef
}

// refOf returns the reference of project (nil or "": noProject).
func (t *projectTable) refOf(project *string) projectRef {
	if project == nil || *project == "" {
		return noProject
	}
	t.mu.RLock()
	r, ok := t.ref[*project]
	t.mu.RUnlock()
	if ok {
		return r
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if r, ok := t.ref[*project]; ok {
		return r
	}
	if len(t.ids) >= maxProjects {
		return unrecordedProject
	}
	if t.ref == nil {
		t.ref = map[string]projectRef{}
	}
	id := strings.Clone(*project)
	t.ids = append(t.ids, id)
	t.ref[id] = projectRef(len(t.ids))
	return t.ref[id]
}

// name returns the project r refers to, and false for unrecordedProject.
func (t *projectTable) name(r projectRef) (*string, bool) {
	switch r {
	case noProject:
		return nil, true
	case unrecordedProject:
		return nil, false
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	id := t.ids[r-1]
	return &id, true
}

// carried returns the project of a newer state: the one it names, else
// the one the session's earlier states named (a state naming none does
// not make the session the default project's, as the reconciler reads
// it).
func (r projectRef) carried(earlier projectRef) projectRef {
	if r == noProject {
		return earlier
	}
	return r
}
