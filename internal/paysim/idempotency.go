package paysim

import (
	"net/http"
	"sync"
	"time"
)

// idemStore remembers idempotency keys for IdempotencyTTL of sandbox time.
// A key maps to the fingerprint of its request (method, version,
// submerchant, canonical body) and, once executed, the response bytes.
type idemStore struct {
	mu      sync.Mutex
	entries map[string]*idemEntry
	order   []*idemEntry // by creation: eviction front
	head    int
}

type idemEntry struct {
	key     string
	fp      [32]byte
	created time.Time
	done    bool
	status  int
	body    []byte
}

type idemResult struct {
	status int
	body   []byte
}

func newIdemStore() *idemStore { return &idemStore{entries: map[string]*idemEntry{}} }

func (s *idemStore) reset() {
	s.mu.Lock()
	s.entries, s.order, s.head = map[string]*idemEntry{}, nil, 0
	s.mu.Unlock()
}

// begin reserves key for a new execution (entry returned), or returns the
// stored result of the same request, or an error: params mismatch (409) or
// still executing (409).
func (s *idemStore) begin(now time.Time, key string, fp [32]byte) (*idemEntry, *idemResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evictLocked(now)
	if e := s.entries[key]; e != nil && now.Sub(e.created) < IdempotencyTTL {
		switch {
		case e.fp != fp:
			return nil, nil, &apiError{HTTP: http.StatusConflict, Code: CodeIdempotencyMismatch, Description: "headers." + HeaderIdempotency + ".params_mismatch"}
		case !e.done:
			return nil, nil, &apiError{HTTP: http.StatusConflict, Code: CodeIdempotencyInProgress, Description: "headers." + HeaderIdempotency + ".in_progress"}
		default:
			return nil, &idemResult{status: e.status, body: e.body}, nil
		}
	}
	e := &idemEntry{key: key, fp: fp, created: now}
	s.entries[key] = e
	s.order = append(s.order, e)
	return e, nil, nil
}

func (s *idemStore) finish(e *idemEntry, status int, body []byte) {
	s.mu.Lock()
	e.done, e.status, e.body = true, status, body
	s.mu.Unlock()
}

// evictLocked drops keys older than the lifetime, oldest first.
func (s *idemStore) evictLocked(now time.Time) {
	for s.head < len(s.order) {
		e := s.order[s.head]
		if now.Sub(e.created) < IdempotencyTTL || !e.done {
			break
		}
		if s.entries[e.key] == e {
			delete(s.entries, e.key)
		}
		s.order[s.head] = nil
		s.head++
	}
	if s.head > 1024 && s.head > len(s.order)/2 {
		s.order = append([]*idemEntry(nil), s.order[s.head:]...)
		s.head = 0
	}
}

// Len is the number of remembered keys (bounded-memory checks).
func (s *idemStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}
