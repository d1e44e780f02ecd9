package codec

import (
	"math"
	"strings"
	"time"
)

// SessionVersion is what orders two snapshots of one session: the service's
// updated_at first, then the rank of the session status, then Progress. The
// order lives beside the outcome model (not with the API mapping in
// connector/sessionstate) because the session writer and every consumer
// (connector/kit's Latest) must apply the same rule, and the kit must not
// reach the API client.
type SessionVersion struct {
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
func Newer(a, b SessionVersion) bool { return a.Stamp().Newer(b.Stamp()) }

// SessionStamp is what orders a SessionVersion, in three words and without the session
// id: what the session writer keeps per session to order the next state
// against (a SessionVersion holds two strings). Stamps order as their versions do.
type SessionStamp struct {
	sec      int64 // updated_at, seconds since 1970 (negative for the zero time)
	nsec     int32 // and nanoseconds within the second
	progress int32 // SessionVersion.Progress, saturated
	rank     int8  // StatusRank of SessionVersion.Status
}

// Stamp returns the stamp of v.
func (v SessionVersion) Stamp() SessionStamp {
	p := v.Progress
	p = max(min(p, math.MaxInt32), math.MinInt32)
	return SessionStamp{sec: v.UpdatedAt.Unix(), nsec: int32(v.UpdatedAt.Nanosecond()), progress: int32(p), rank: int8(StatusRank(v.Status))}
}

// Newer reports whether a is strictly newer than b: a later updated_at,
// then a higher status rank, then more progress.
func (a SessionStamp) Newer(b SessionStamp) bool {
	switch {
	case a.sec != b.sec:
		return a.sec > b.sec
	case a.nsec != b.nsec:
		return a.nsec > b.nsec
	case a.rank != b.rank:
		return a.rank > b.rank
	}
	return a.progress > b.progress
}

// UpdatedAt returns the stamp's updated_at (zero when the state had none).
func (a SessionStamp) UpdatedAt() time.Time {
	if a.sec == zeroSec && a.nsec == 0 {
		return time.Time{}
	}
	return time.Unix(a.sec, int64(a.nsec)).UTC()
}

var zeroSec = time.Time{}.Unix()

// VersionOf returns the ordering key of a snapshot.
func VersionOf(s *SessionState) SessionVersion {
	v := SessionVersion{SessionID: s.Session.ID, Status: s.Session.Status, Progress: ProgressOf(&s.Session)}
	if s.Session.UpdatedAt != nil {
		v.UpdatedAt = *s.Session.UpdatedAt
	}
	return v
}

// ProgressOf scores how far a session's operations and refunds went: the
// sum of their status ranks. It only grows as the service moves them on, so
// it orders two snapshots that share updated_at and session status.
func ProgressOf(s *Session) int {
	p := 0
	for _, op := range s.Operations {
		p += StatusRank(op.Status)
		for _, r := range op.Refunds {
			p += StatusRank(r.Status)
		}
	}
	return p
}
