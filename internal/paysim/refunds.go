package paysim

import "time"

// Refunds ("successful payment → session/refund → refund in_progress →
// payment_refunded") and chargebacks ("→ refund accepted, is_chargeback").

// refundTarget is the latest succeeded payment of the session.
func refundTarget(sess *session) *operation {
	for i := len(sess.Payments) - 1; i >= 0; i-- {
		if op := sess.Payments[i]; op.Status == statusSucceeded && op.final() {
			return op
		}
	}
	return nil
}

// refundAmount checks amount_details against what can still be refunded;
// absent means the whole rest.
func refundAmount(f fields, op *operation) (int64, error) {
	amt, err := amountIn(f, "amount_details", false)
	if err != nil {
		return 0, err
	}
	left := op.refundable()
	if amt == nil {
		if left <= 0 {
			return 0, invalid("amount_details.amount", "exceeds_paid")
		}
		return left, nil
	}
	if amt.Currency != op.Amount.Currency {
		return 0, invalid("amount_details.currency", "currency")
	}
	if amt.Value > left {
		return 0, invalid("amount_details.amount", "exceeds_paid")
	}
	return amt.Value, nil
}

func (s *Server) refund(c *call) (map[string]any, error) {
	sess, err := c.lookup()
	if err != nil {
		return nil, err
	}
	op := refundTarget(sess)
	if op == nil {
		return nil, invalid("session_id", "invalid_state")
	}
	v, err := refundAmount(c.body, op)
	if err != nil {
		return nil, err
	}
	meta, err := c.parseMetadata()
	if err != nil {
		return nil, err
	}
	r := &refund{ID: s.nextID("rf"), Status: statusInProgress, CreatedAt: c.now,
		Amount: amount{Value: v, Currency: op.Amount.Currency}, Metadata: meta}
	op.Refunds = append(op.Refunds, r)
	sess.UpdatedAt = c.now
	sessID, opID, rfID := sess.ID, op.ID, r.ID
	c.later(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		sess := s.sessions[sessID]
		if sess == nil {
			return
		}
		s.completeRefund(sess, sess.find(opID), rfID, s.Now())
	})
	return c.sessionResult(sess), nil
}

func (s *Server) completeRefund(sess *session, op *operation, refundID string, now time.Time) {
	if op == nil {
		return
	}
	for _, r := range op.Refunds {
		if r.ID == refundID && r.Status == statusInProgress {
			r.Status, r.FinishedAt, r.Txn = statusAccepted, now, s.newTxn()
			s.book(sess, op, r.ID, "refund", r.Amount.Value, 0, -r.Amount.Value, now)
			sess.UpdatedAt = now
			s.emit(sess, EventPaymentRefunded)
		}
	}
}

// Chargeback reports a chargeback on the session's successful payment:
// a refund accepted at once with is_chargeback true, and payment_refunded.
// amount 0 means everything not yet refunded. It returns the refund id.
func (s *Server) Chargeback(sessionID string, amt int64) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sessions[sessionID]
	if sess == nil {
		return "", recordNotFound()
	}
	op := refundTarget(sess)
	if op == nil {
		return "", invalid("session_id", "invalid_state")
	}
	left := op.refundable()
	if amt == 0 {
		amt = left
	}
	if amt <= 0 || amt > left {
		return "", invalid("amount", "exceeds_paid")
	}
	now := s.Now()
	r := &refund{ID: s.nextID("rf"), Status: statusAccepted, CreatedAt: now, FinishedAt: now, Chargeback: true,
		Amount: amount{Value: amt, Currency: op.Amount.Currency}, Txn: s.newTxn()}
	op.Refunds = append(op.Refunds, r)
	s.book(sess, op, r.ID, "chargeback", amt, 0, -amt, now)
	sess.UpdatedAt = now
	s.emit(sess, EventPaymentRefunded)
	return r.ID, nil
}
