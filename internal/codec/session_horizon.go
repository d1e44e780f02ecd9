package codec

import "time"

// The horizon: how far back the connector remembers a session.
//
// Compaction keeps the last state of every session for ever, so what the
// connector keeps per session must not be every session ever seen: the
// session writer and the reconciler remember only the sessions whose last
// record on the sessions topic is younger than the horizon, and read only
// that much of the topic when they take a partition over (Kafka's time
// index gives the offset of a timestamp).
//
// A state of a session the writer no longer remembers is written when its
// updated_at is within the horizon (a chargeback weeks later is a new
// state), and dropped as stale when it is older. That can never put a
// session backwards: its last written state left memory only once its
// record was older than the horizon plus ClockAllowance, so its updated_at
// (which the service stamped before the connector produced the record,
// give or take the clock difference between the two) is older than the
// horizon, and so older than any state accepted.
const (
	// DefaultHorizon is the horizon's default: 7 days, far beyond the
	// service's webhook resends (30 minutes), its confirmation deadline
	// (240 minutes) and the reconciler's default age limit (72 hours).
	DefaultHorizon = 7 * 24 * time.Hour
	// ClockAllowance is how far the service's clock (updated_at) may run
	// ahead of the connector's (record timestamps) without breaking the
	// guarantee above: a session is forgotten only once its last record is
	// older than the horizon plus this.
	ClockAllowance = time.Hour
)

// WithinHorizon reports whether a state last updated at updatedAt is within
// horizon at now: a state without updated_at (zero) is not.
func WithinHorizon(updatedAt, now time.Time, horizon time.Duration) bool {
	return !updatedAt.IsZero() && !updatedAt.Before(now.Add(-horizon))
}

// ForgetBefore returns the record timestamp before which a session is
// forgotten at now: the horizon plus ClockAllowance.
func ForgetBefore(now time.Time, horizon time.Duration) time.Time {
	return now.Add(-horizon - ClockAllowance)
}
