package sessionstate

import "github.com/paysession/paysession/internal/codec"

// VersionOf returns the ordering key of a snapshot.
func VersionOf(s *codec.SessionState) Version {
	v := Version{SessionID: s.Session.ID, Status: s.Session.Status, Progress: ProgressOf(&s.Session)}
	if s.Session.UpdatedAt != nil {
		v.UpdatedAt = *s.Session.UpdatedAt
	}
	return v
}

// ProgressOf scores how far a session's operations and refunds went: the
// sum of their status ranks. It only grows as the service moves them on, so
// it orders two snapshots that share updated_at and session status.
func ProgressOf(s *codec.Session) int {
	p := 0
	for _, op := range s.Operations {
		p += StatusRank(op.Status)
		for _, r := range op.Refunds {
			p += StatusRank(r.Status)
		}
	}
	return p
}
