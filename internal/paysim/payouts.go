package paysim

import "time"

// Payouts (to cards, bank accounts, tokens) and FPS customer verification.

func (s *Server) initPayout(c *call) (map[string]any, error) {
	in, err := c.parseInput(false, false)
	if err != nil {
		return nil, err
	}
	if err := in.require(c, false); err != nil {
		return nil, err
	}
	sess := c.newSession()
	s.addPayout(c, sess, in, false)
	return c.sessionResult(sess), nil
}

func (s *Server) addPayout(c *call, sess *session, in operationInput, fpsCheck bool) {
	op := newOperation(c, s.nextID("po"), in)
	op.Payout, op.FPSCheck = true, fpsCheck
	sess.Payouts = append(sess.Payouts, op)
	s.opIndex[op.ID] = sess
	sess.settle(c.now)
	c.later(s.onOp(sess.ID, op.ID, stageProcessing, s.advancePayout))
}

// advancePayout: auto-confirmed payouts finish; others (project without
// auto_confirm, amount >= confirm_above, card 4000000000000259) wait for
// session/confirm. FPS checks are always auto-confirmed.
func (s *Server) advancePayout(sess *session, op *operation, now time.Time) {
	p := s.projects[sess.Project]
	if !op.FPSCheck && (!p.AutoConfirm || op.Amount.Value >= p.ConfirmAbove || behaviourOf(op.Instrument.PAN) == behaveConfirm) {
		s.awaitConfirm(sess, op, now)
		return
	}
	s.finishPayout(sess, op, now)
}

func (s *Server) finishPayout(sess *session, op *operation, now time.Time) {
	if op.FPSCheck {
		op.Fee = &amount{Value: 0, Currency: op.Amount.Currency} // free of charge
		if op.Instrument.FPSPhone == PhoneFPSNotFound {
			s.cancelOp(sess, op, now, "recipient not found")
			return
		}
		s.succeed(sess, op, now)
		return
	}
	if op.Instrument.PAN != "" && behaviourOf(op.Instrument.PAN) == behaveDecline {
		s.cancelOp(sess, op, now, "declined by issuer")
		return
	}
	p := s.projects[sess.Project]
	f := fee(op.Amount.Value)
	if s.balance(p, op.Amount.Currency) < op.Amount.Value+f {
		s.cancelOp(sess, op, now, "insufficient wallet balance")
		return
	}
	op.Fee = &amount{Value: f, Currency: op.Amount.Currency}
	s.book(sess, op, "", "payout", op.Amount.Value, f, -(op.Amount.Value + f), now)
	s.succeed(sess, op, now)
}

// fpsVerification: "recipient found → session successful; not found →
// session canceled"; free, auto-confirmed, a small amount.
func (s *Server) fpsVerification(c *call) (map[string]any, error) {
	name := payoutField(c.version)
	inst, err := c.parseInstrument(name, true, false)
	if err != nil {
		return nil, err
	}
	if inst.Type != "bank_account" {
		return nil, invalid(name+".type", "inclusion")
	}
	if inst.SystemType != systemFPS {
		return nil, invalid(name+".bank_account.system_type", "inclusion")
	}
	parts, err := c.parseParticipants(true, false)
	if err != nil {
		return nil, err
	}
	rcp, _, err := c.body.object("participant_details", true)
	if err != nil {
		return nil, err
	}
	r, _, err := rcp.object("recipient", true)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"first_name", "last_name"} {
		if _, err := r.str(k, true); err != nil {
			return nil, err
		}
	}
	meta, err := c.parseMetadata()
	if err != nil {
		return nil, err
	}
	sess := c.newSession()
	s.addPayout(c, sess, operationInput{inst: inst, amt: &amount{Value: 100, Currency: "rub"},
		participants: parts, metadata: meta}, true)
	return c.sessionResult(sess), nil
}
