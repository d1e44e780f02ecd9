package sessionwriter

import (
	"slices"
	"time"
)

// PartitionStatus is one partition the session writer owns, as /status
// shows it.
type PartitionStatus struct {
	Partition int32 `json:"partition"`
	// TakenOverAt is when the writer finished taking the partition over;
	// absent while the takeover runs.
	TakenOverAt *time.Time `json:"taken_over_at,omitempty"`
	// TakeoverSeconds is how long the takeover took; absent while it runs.
	TakeoverSeconds *float64 `json:"takeover_seconds,omitempty"`
}

// Status is what the session writer reports of itself at /status.
type Status struct {
	// Partitions are the updates partitions assigned to this replica: those
	// it writes and those still being taken over.
	Partitions []PartitionStatus `json:"partitions"`
}

// takeover is when a partition was taken over and how long that took.
type takeover struct {
	at   time.Time
	took time.Duration
}

// Status returns the writer's partitions and their takeovers. Safe to call
// from any goroutine.
func (w *Writer) Status() Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := Status{Partitions: []PartitionStatus{}}
	for p := range w.pending {
		out.Partitions = append(out.Partitions, PartitionStatus{Partition: p})
	}
	for p, t := range w.takenOver {
		if w.pending[p] { // being taken over again
			continue
		}
		at, took := t.at.UTC(), t.took.Seconds()
		out.Partitions = append(out.Partitions, PartitionStatus{Partition: p, TakenOverAt: &at, TakeoverSeconds: &took})
	}
	slices.SortFunc(out.Partitions, func(a, b PartitionStatus) int { return int(a.Partition - b.Partition) })
	return out
}
