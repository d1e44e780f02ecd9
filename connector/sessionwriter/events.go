package sessionwriter

import (
	"crypto/sha256"
	"encoding/hex"
)

// eventKey is an event id as a map key: the 32 bytes of an id written as
// 64 hex digits (the ingress's EventID, a SHA-256), else the SHA-256 of
// the id, so an entry costs the same whatever a header carried.
type eventKey [sha256.Size]byte

func keyOfEvent(id string) eventKey {
	var k eventKey
	if len(id) == 2*len(k) {
		if _, err := hex.Decode(k[:], []byte(id)); err == nil && hex.EncodeToString(k[:]) == id {
			return k
		}
	}
	return sha256.Sum256([]byte(id))
}

// eventSet holds the event ids written in the event window, each with the
// Unix millisecond it was written at.
type eventSet struct {
	at   map[eventKey]int64
	peak int
}

func newEventSet() eventSet { return eventSet{at: map[eventKey]int64{}} }

// seen reports whether id was written at or after since (Unix ms).
func (s *eventSet) seen(id string, since int64) bool {
	at, ok := s.at[keyOfEvent(id)]
	return ok && at >= since
}

// add remembers id written at at, unless it is remembered as written later.
func (s *eventSet) add(id string, at int64) {
	k := keyOfEvent(id)
	if prev, ok := s.at[k]; !ok || prev < at {
		s.at[k] = at
	}
	s.peak = max(s.peak, len(s.at))
}

func (s *eventSet) del(id string) { delete(s.at, keyOfEvent(id)) }

// sweep forgets ids written before since and reclaims the map's memory
// when it fell far below its peak (shrunk).
func (s *eventSet) sweep(since int64) {
	for k, at := range s.at {
		if at < since {
			delete(s.at, k)
		}
	}
	if shrunk(len(s.at), s.peak) {
		s.at, s.peak = remade(s.at), len(s.at)
	}
}
