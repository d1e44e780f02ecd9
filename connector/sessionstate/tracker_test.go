package sessionstate

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func ver(id string, sec int, status string, progress int) Version {
	return Version{SessionID: id, UpdatedAt: t0.Add(time.Duration(sec) * time.Second), Status: status, Progress: progress}
}

func TestNewer(t *testing.T) {
	tests := []struct {
		name string
		a, b Version
		want bool
	}{
		{"later updated_at wins", ver("s", 2, "in_progress", 0), ver("s", 1, "accepted", 9), true},
		{"earlier updated_at loses", ver("s", 1, "accepted", 9), ver("s", 2, "created", 0), false},
		{"same time, higher rank", ver("s", 1, "accepted", 0), ver("s", 1, "in_progress", 5), true},
		{"same time, pending over in_progress", ver("s", 1, "pending", 0), ver("s", 1, "in_progress", 0), true},
		{"same time, in_progress over created", ver("s", 1, "in_progress", 0), ver("s", 1, "created", 0), true},
		{"same time, lower rank", ver("s", 1, "created", 0), ver("s", 1, "in_progress", 0), false},
		{"same time and rank, more progress", ver("s", 1, "in_progress", 2), ver("s", 1, "in_progress", 1), true},
		{"identical is not newer", ver("s", 1, "in_progress", 1), ver("s", 1, "in_progress", 1), false},
		{"unknown status ranks as in_progress", ver("s", 1, "on_hold", 0), ver("s", 1, "in_progress", 0), false},
		{"canceled is final", ver("s", 1, "canceled", 0), ver("s", 1, "pending", 3), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Newer(tc.a, tc.b); got != tc.want {
				t.Fatalf("Newer = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTrackerAdmitSequence(t *testing.T) {
	tests := []struct {
		name string
		seq  []Version
		want []bool
	}{
		{"forward", []Version{ver("a", 1, "created", 0), ver("a", 2, "in_progress", 0), ver("a", 3, "accepted", 1)}, []bool{true, true, true}},
		{"replay of older is refused", []Version{ver("a", 3, "accepted", 1), ver("a", 1, "created", 0), ver("a", 2, "in_progress", 0)}, []bool{true, false, false}},
		{"duplicate is refused", []Version{ver("a", 1, "in_progress", 0), ver("a", 1, "in_progress", 0)}, []bool{true, false}},
		{"sessions are independent", []Version{ver("a", 3, "accepted", 0), ver("b", 1, "created", 0)}, []bool{true, true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := NewTracker(TrackerConfig{})
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range tc.seq {
				if got := tr.AdmitVersion(v); got != tc.want[i] {
					t.Fatalf("step %d: Admit = %v, want %v", i, got, tc.want[i])
				}
			}
		})
	}
}

func TestTrackerBounds(t *testing.T) {
	now := t0
	tr, err := NewTracker(TrackerConfig{MaxSessions: 2, TTL: time.Hour, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	tr.AdmitVersion(ver("a", 5, "accepted", 0))
	tr.AdmitVersion(ver("b", 5, "accepted", 0))
	tr.AdmitVersion(ver("c", 5, "accepted", 0)) // evicts a
	if tr.Len() != 2 {
		t.Fatalf("Len = %d, want 2", tr.Len())
	}
	if _, ok := tr.Latest("a"); ok {
		t.Fatal("a should be evicted")
	}
	if !tr.AdmitVersion(ver("a", 1, "created", 0)) {
		t.Fatal("forgotten session must admit")
	}
	now = now.Add(2 * time.Hour)
	if !tr.AdmitVersion(ver("b", 1, "created", 0)) {
		t.Fatal("expired session must admit")
	}
	if !tr.IsLatest(ver("b", 1, "created", 0)) || tr.IsLatest(ver("b", 0, "created", 0)) {
		t.Fatal("IsLatest wrong")
	}
}

func TestTrackerConfigValidate(t *testing.T) {
	err := TrackerConfig{MaxSessions: -1, TTL: -time.Second}.Validate()
	if err == nil {
		t.Fatal("want error")
	}
	for _, field := range []string{"MaxSessions", "TTL"} {
		if !strings.Contains(err.Error(), field) {
			t.Errorf("error %q does not name %s", err, field)
		}
	}
}

func TestTrackerConcurrentAdmitsOneWinnerPerVersion(t *testing.T) {
	tr, _ := NewTracker(TrackerConfig{})
	const workers = 8
	var wg sync.WaitGroup
	admitted := make([]int, 20)
	var mu sync.Mutex
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				if tr.AdmitVersion(ver(fmt.Sprint("s", i%4), i, "in_progress", 0)) {
					mu.Lock()
					admitted[i]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for i, n := range admitted {
		if n > 1 {
			t.Fatalf("version %d admitted %d times", i, n)
		}
	}
}

func TestTrackerRetract(t *testing.T) {
	tr, _ := NewTracker(TrackerConfig{})
	a, b, c := ver("s", 1, "created", 0), ver("s", 2, "in_progress", 0), ver("s", 3, "accepted", 0)
	tr.AdmitVersion(a)
	tr.AdmitVersion(b)
	tr.Retract(b) // publish of b failed
	if got, _ := tr.Latest("s"); got != a {
		t.Fatalf("latest %+v, want a", got)
	}
	if !tr.AdmitVersion(b) {
		t.Fatal("b refused after its retraction")
	}
	tr.AdmitVersion(c)
	tr.Retract(b) // stale retraction: c stays
	if got, _ := tr.Latest("s"); got != c {
		t.Fatalf("latest %+v, want c", got)
	}
	tr.Retract(c)
	if got, _ := tr.Latest("s"); got != b {
		t.Fatalf("latest %+v, want b restored", got)
	}
	tr.Retract(b) // nothing older remembered: forgotten
	if _, ok := tr.Latest("s"); ok {
		t.Fatal("session still remembered")
	}
}
