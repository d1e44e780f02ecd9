package reconcile

import "time"

// Clock tells the time that quietness, backoff and deadlines are measured
// on. Tests inject a fake one shared with the sandbox.
type Clock interface {
	Now() time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }
