package paysim

// Bounded memory: the sandbox keeps at most Config.MaxSessions sessions.
// Beyond that the oldest sessions whose operations and refunds are all
// final are forgotten (with their recurring tokens and execution peaks);
// sessions still in progress are kept. Idempotency keys are evicted after
// their 24 hours, logs are capped by MaxLogEntries, public tokens are swept
// after their 24 hours, and tokenize/elements issues one token per card.

// DefaultMaxSessions is the default of Config.MaxSessions.
const DefaultMaxSessions = 100_000

// remember adds sess to the eviction order and evicts if over the cap.
// Callers hold s.mu.
func (s *Server) remember(sess *session) {
	s.order = append(s.order, sess.ID)
	for tries := 0; len(s.sessions) > s.cfg.MaxSessions && tries < 8 && len(s.order) > 0; tries++ {
		id := s.order[0]
		s.order = s.order[1:]
		old := s.sessions[id]
		if old == nil {
			continue
		}
		if !settled(old) {
			s.order = append(s.order, id) // still moving: keep, look again later
			continue
		}
		s.forget(old)
	}
	if len(s.public) > s.cfg.MaxSessions {
		now := s.Now()
		for tok, p := range s.public {
			if p.Used || now.Sub(p.CreatedAt) >= PublicTokenTTL {
				delete(s.public, tok)
			}
		}
	}
}

func settled(sess *session) bool {
	for _, list := range [][]*operation{sess.Payments, sess.Payouts} {
		for _, o := range list {
			if !o.final() {
				return false
			}
			for _, r := range o.Refunds {
				if r.Status == statusInProgress {
					return false
				}
			}
		}
	}
	return true
}

func (s *Server) forget(sess *session) {
	delete(s.sessions, sess.ID)
	for _, list := range [][]*operation{sess.Payments, sess.Payouts} {
		for _, o := range list {
			delete(s.opIndex, o.ID)
			if o.Recurrent != nil {
				delete(s.recurrent, o.Recurrent.Token)
			}
		}
	}
	s.execs.forget(sess.ID)
}

// Sessions is the number of sessions held (bounded-memory checks).
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}
