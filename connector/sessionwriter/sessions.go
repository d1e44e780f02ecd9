package sessionwriter

import (
	"strconv"
	"strings"

	"github.com/paysession/paysession/internal/codec"
)

// remembered is what the writer keeps of one session: the stamp of the
// last state it wrote, that record's timestamp (Unix milliseconds), by
// which the session is forgotten once it is older than the horizon, and
// the project its states name (known.go).
type remembered struct {
	stamp   codec.SessionStamp
	wrote   int64
	project projectRef
}

// sessionMap maps session ids to V in little memory. The service's ids
// are "ps_<number>": those are kept under the number (eight bytes, no
// allocation), any other id under its string.
type sessionMap[V any] struct {
	nums  map[uint64]V
	names map[string]V
	peak  int // the most entries held since the maps were last made
}

func newSessionMap[V any]() sessionMap[V] {
	return sessionMap[V]{nums: map[uint64]V{}, names: map[string]V{}}
}

// numberOf returns the number of a canonical "ps_<number>" id: digits
// without a leading zero (bar "ps_0") that fit in a uint64, so that the
// number gives the id back byte for byte.
func numberOf(id string) (uint64, bool) {
	const prefix = "ps_"
	if len(id) <= len(prefix) || id[:len(prefix)] != prefix {
		return 0, false
	}
	digits := id[len(prefix):]
	if digits[0] == '0' && len(digits) > 1 || digits[0] == '+' {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

func (m *sessionMap[V]) get(id string) (V, bool) {
	if n, ok := numberOf(id); ok {
		v, ok := m.nums[n]
		return v, ok
	}
	v, ok := m.names[id]
	return v, ok
}

func (m *sessionMap[V]) set(id string, v V) {
	if n, ok := numberOf(id); ok {
		m.nums[n] = v
	} else {
		// A copy: a decoded id may share its memory with the whole
		// decoded record, which the map would then keep alive.
		m.names[strings.Clone(id)] = v
	}
	m.peak = max(m.peak, m.len())
}

func (m *sessionMap[V]) del(id string) {
	if n, ok := numberOf(id); ok {
		delete(m.nums, n)
	} else {
		delete(m.names, id)
	}
}

func (m *sessionMap[V]) len() int { return len(m.nums) + len(m.names) }

// sweep deletes the entries drop reports, and the same ids of also (a map
// kept beside this one). Go maps keep their size after deletes, so maps
// that fell to a quarter of their peak are made anew. It returns the
// number of entries deleted.
func sweep[V, W any](m *sessionMap[V], also *sessionMap[W], drop func(V) bool) int {
	n := 0
	for k, v := range m.nums {
		if drop(v) {
			delete(m.nums, k)
			delete(also.nums, k)
			n++
		}
	}
	for k, v := range m.names {
		if drop(v) {
			delete(m.names, k)
			delete(also.names, k)
			n++
		}
	}
	m.shrink()
	also.shrink()
	return n
}

// shrink makes the maps anew when they fell far below their peak
// (shrunk).
func (m *sessionMap[V]) shrink() {
	if !shrunk(m.len(), m.peak) {
		return
	}
	m.nums, m.names, m.peak = remade(m.nums), remade(m.names), m.len()
}

// shrunk reports whether a map of n entries whose peak was peak is worth
// making anew: Go maps keep their size after deletes, so one that fell to
// a quarter of a peak of 1,024 entries or more holds mostly empty room.
func shrunk(n, peak int) bool { return peak >= 1024 && 4*n < peak }

// remade returns a copy of m sized for what it holds now.
func remade[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
