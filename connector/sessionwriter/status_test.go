package sessionwriter

import (
	"encoding/json"
	"testing"
	"time"
)

// TestStatus: the writer's partitions in order; a partition taken over
// shows when and how long it took, one still being taken over (again)
// shows neither.
func TestStatus(t *testing.T) {
	at := time.Date(2026, 11, 28, 19, 0, 0, 0, time.UTC)
	w := &Writer{pending: map[int32]bool{3: true, 5: true},
		takenOver: map[int32]takeover{1: {at: at, took: 2 * time.Second}, 5: {at: at, took: time.Second}}}
	got, _ := json.Marshal(w.Status())
	want := `{"partitions":[{"partition":1,"taken_over_at":"2026-11-28T19:00:00Z","takeover_seconds":2},{"partition":3},{"partition":5}]}`
	if string(got) != want {
		t.Errorf("status:\n got %s\nwant %s", got, want)
	}
}
