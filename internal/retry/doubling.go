// Package retry computes the waits between retries of something that keeps
// failing: a Kafka session that cannot start (pipeline, session writer), the
// question whether the previous transaction is complete (pipeline), an
// API call (the pipeline's jittered backoff takes its ceiling from it) or a
// session whose status does not change (reconciler).
package retry

import "time"

// Doubling is a wait that starts at Initial and doubles after each miss in
// a row, up to Max.
type Doubling struct {
	Initial, Max time.Duration
}

// After returns the wait after misses misses in a row: Initial·2^misses, but
// never more than Max (and Max when Initial already exceeds it).
func (d Doubling) After(misses int) time.Duration {
	w := d.Initial
	for i := 0; i < misses && w < d.Max; i++ {
		w *= 2
	}
	return min(w, d.Max)
}
