package sessionstate

import (
	"strings"
	"time"
)

// Version is what orders two snapshots of one session: the service's
// updated_at first, then the rank of the session status, then Progress.
type Version struct {
	SessionID string
	UpdatedAt time.Time
	Status    string
	// Progress breaks ties between snapshots with the same updated_at and
	// status: it grows with every operation or refund that moves forward
	// (see ProgressOf). Zero when unknown.
	Progress int
}

// Status ranks, lowest first. A snapshot never replaces one of a higher
// rank with the same updated_at:
//
//	created (1) < in_progress, unknown values (2) < pending (3) < final (4)
//
// Final session statuses are accepted, canceled/cancelled, succeeded,
// failed, declined, rejected and expired. The spec lists created,
// in_progress and accepted and says the list is incomplete, so unknown
// values rank with in_progress: they can only win by a newer updated_at.
const (
	rankCreated    = 1
	rankInProgress = 2
	rankPending    = 3
	rankFinal      = 4
)

var finalStatuses = map[string]bool{
	"accepted": true, "canceled": true, "cancelled": true, "succeeded": true,
	"failed": true, "declined": true, "rejected": true, "expired": true,
}

// StatusRank returns the rank of a session or operation status.
func StatusRank(status string) int {
	s := strings.ToLower(status)
	switch {
	case s == "created":
		return rankCreated
	case s == "pending":
		return rankPending
	case finalStatuses[s]:
		return rankFinal
	default:
		return rankInProgress
	}
}

// IsFinal reports whether a session status is final: the session will not
// change any more except by refunds or chargebacks, so it is not polled.
func IsFinal(status string) bool { return finalStatuses[strings.ToLower(status)] }

// Newer reports whether a is strictly newer than b. Both must describe the
// same session.
func Newer(a, b Version) bool {
	if !a.UpdatedAt.Equal(b.UpdatedAt) {
		return a.UpdatedAt.After(b.UpdatedAt)
	}
	if ra, rb := StatusRank(a.Status), StatusRank(b.Status); ra != rb {
		return ra > rb
	}
	return a.Progress > b.Progress
}
