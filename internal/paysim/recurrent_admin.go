package paysim

// RecurringTokens returns the recurring tokens that the successful card
// payments of a session issued (active or not). The partner learns a token
// from the operation's recurrent member; demos and tests use this to play
// the partner's system that stores it.
func (s *Server) RecurringTokens(sessionID string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sessions[sessionID]
	if sess == nil {
		return nil
	}
	var out []string
	for _, op := range sess.Payments {
		if op.Recurrent != nil {
			out = append(out, op.Recurrent.Token)
		}
	}
	return out
}
