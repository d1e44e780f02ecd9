package fifo

import (
	"testing"
	"time"
)

// TestSetBounds: an entry lives for the TTL from when it was added, and
// past MaxEntries the oldest goes first.
func TestSetBounds(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	c := New[string, int](2, time.Hour)
	n := 0
	mk := func() int { n++; return n }
	steps := []struct {
		at    time.Duration
		key   string
		want  int
		added bool
	}{
		{0, "a", 1, true},
		{0, "a", 1, false},
		{59 * time.Minute, "a", 1, false},
		{time.Hour, "a", 2, true}, // an hour after it was added: gone
		{time.Hour, "b", 3, true},
		{time.Hour, "c", 4, true}, // evicts a, the oldest
		{time.Hour, "a", 5, true},
		{time.Hour, "c", 4, false},
	}
	for i, s := range steps {
		v, added := c.GetOrAdd(s.key, t0.Add(s.at), mk)
		if v != s.want || added != s.added {
			t.Fatalf("step %d: GetOrAdd(%s) = %d, %v; want %d, %v", i, s.key, v, added, s.want, s.added)
		}
	}
	if v, ok := c.Get("c", t0.Add(time.Hour)); !ok || v != 4 {
		t.Errorf("Get(c) = %d, %v; want 4, true", v, ok)
	}
	if _, ok := c.Get("b", t0.Add(time.Hour)); ok {
		t.Error("Get(b) found an evicted entry")
	}
	if got := c.Len(t0.Add(time.Hour)); got != 2 {
		t.Errorf("Len = %d, want 2", got)
	}
	var keys []string
	for k := range c.All(t0.Add(time.Hour)) {
		keys = append(keys, k)
	}
	if len(keys) != 2 || keys[0] != "a" || keys[1] != "c" {
		t.Errorf("All = %v, want [a c] (newest added first; a hit does not refresh)", keys)
	}
	if _, ok := c.Get("c", t0.Add(2*time.Hour)); ok {
		t.Error("Get(c) found an entry past its TTL")
	}
	if got := c.Len(t0.Add(3 * time.Hour)); got != 0 {
		t.Errorf("Len after every TTL = %d, want 0", got)
	}
}
