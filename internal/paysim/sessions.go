package paysim

import (
	"encoding/json"
	"time"
)

// Spec rows "(none) → session/create → session created" and "session
// created → session/start/payment|payout → in_progress" live here, with
// confirm, cancel and status.

func (c *call) newSession() *session {
	s := c.s
	sess := &session{ID: s.nextID("ps"), Project: c.project.ID, Version: c.version, BaseURL: c.baseURL,
		Status: statusCreated, CreatedAt: c.now, UpdatedAt: c.now}
	s.sessions[sess.ID] = sess
	s.remember(sess)
	c.sessionID = sess.ID
	return sess
}

// lookup finds the body's session_id within the caller's project.
func (c *call) lookup() (*session, error) {
	id, err := c.sessionIDField()
	if err != nil {
		return nil, err
	}
	sess := c.s.sessions[id]
	if sess == nil || sess.Project != c.project.ID {
		return nil, recordNotFound()
	}
	return sess, nil
}

func (c *call) sessionResult(sess *session) map[string]any {
	return map[string]any{"session": renderSession(sess, c.version, false, c.baseURL)}
}

// operationInput is the data of a payment or payout from the request,
// completed with what session/create stored.
type operationInput struct {
	inst         *instrument
	amt          *amount
	customer     any
	participants any
	options      any
	metadata     json.RawMessage
}

func (c *call) parseInput(payment, requireSender bool) (operationInput, error) {
	var in operationInput
	var err error
	name := payoutField(c.version)
	if payment {
		name = "payment_details"
	}
	if in.inst, err = c.parseInstrument(name, false, payment); err != nil {
		return in, err
	}
	if in.amt, err = amountIn(c.body, "amount_details", false); err != nil {
		return in, err
	}
	if in.participants, err = c.parseParticipants(false, requireSender); err != nil {
		return in, err
	}
	if in.customer, err = c.parseCustomer(false); err != nil {
		return in, err
	}
	if in.options, err = c.parseOptions(); err != nil {
		return in, err
	}
	in.metadata, err = c.parseMetadata()
	return in, err
}

// merge fills what the request left out from the session's stored data.
func (in *operationInput) merge(d sessionData, payment bool) {
	if in.inst == nil {
		in.inst = map[bool]*instrument{true: d.Payment, false: d.Payout}[payment]
	}
	if in.amt == nil {
		in.amt = d.Amount
	}
	in.customer = firstNonNil(in.customer, d.Customer)
	in.participants = firstNonNil(in.participants, d.Participants)
	in.options = firstNonNil(in.options, d.Options)
	if in.metadata == nil {
		in.metadata = d.Metadata
	}
}

func firstNonNil(a, b any) any {
	if a != nil {
		return a
	}
	return b
}

// require reports the first required member still missing.
func (in *operationInput) require(c *call, payment bool) error {
	switch {
	case in.inst == nil && payment:
		return invalid("payment_details", "blank")
	case in.inst == nil:
		return invalid(payoutField(c.version), "blank")
	case in.amt == nil:
		return invalid("amount_details", "blank")
	case in.customer == nil && payment:
		return invalid("customer", "blank")
	}
	return nil
}

// requireSender applies the sender rule (first_name, last_name and ipv4)
// to participant details already checked for shape.
func requireSender(participants any) error {
	p, ok := participants.(map[string]any)
	if !ok {
		return invalid("participant_details", "blank")
	}
	snd, _, err := fields{path: "participant_details", m: p}.object("sender", true)
	if err != nil {
		return err
	}
	for _, k := range []string{"first_name", "last_name", "ipv4"} {
		if _, err := snd.str(k, true); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) createSession(c *call) (map[string]any, error) {
	var d sessionData
	var err error
	if d.Payment, err = c.parseInstrument("payment_details", false, true); err != nil {
		return nil, err
	}
	in, err := c.parseInput(false, d.Payment != nil && c.project.RequireSender)
	if err != nil {
		return nil, err
	}
	d.Payout, d.Amount, d.Customer, d.Participants, d.Options, d.Metadata =
		in.inst, in.amt, in.customer, in.participants, in.options, in.metadata
	sess := c.newSession()
	sess.Data = d
	return c.sessionResult(sess), nil
}

func (s *Server) startPayment(c *call) (map[string]any, error) { return s.start(c, true) }
func (s *Server) startPayout(c *call) (map[string]any, error)  { return s.start(c, false) }

func (s *Server) start(c *call, payment bool) (map[string]any, error) {
	sess, err := c.lookup()
	if err != nil {
		return nil, err
	}
	if sess.Status == statusCanceled || sess.waiting() != nil {
		return nil, invalid("session_id", "invalid_state")
	}
	// The sender may come "either earlier or in this request": it is
	// required only once merged with what session/create stored.
	in, err := c.parseInput(payment, false)
	if err != nil {
		return nil, err
	}
	in.merge(sess.Data, payment)
	if err := in.require(c, payment); err != nil {
		return nil, err
	}
	if payment && c.project.RequireSender {
		if err := requireSender(in.participants); err != nil {
			return nil, err
		}
	}
	if payment {
		s.addPayment(c, sess, in)
	} else {
		s.addPayout(c, sess, in, false)
	}
	return c.sessionResult(sess), nil
}

func (s *Server) status(c *call) (map[string]any, error) {
	sess, err := c.lookup()
	if err != nil {
		return nil, err
	}
	return c.sessionResult(sess), nil
}

// confirm: "operation pending, next_action confirm → session/confirm →
// session in_progress; response shows the operation pending; result by
// payment_finished".
func (s *Server) confirm(c *call) (map[string]any, error) {
	sess, err := c.lookup()
	if err != nil {
		return nil, err
	}
	op := sess.waiting()
	if op == nil || op.Stage != stageConfirm {
		return nil, invalid("session_id", "invalid_state")
	}
	op.Stage = stageProcessing
	sess.settle(c.now)
	c.later(s.onOp(sess.ID, op.ID, stageProcessing, s.finish))
	return c.sessionResult(sess), nil
}

// cancel: after ready_to_confirm or ready_to_capture the partner declines;
// the response shows the session in_progress, payment_finished follows with
// the operation canceled.
func (s *Server) cancel(c *call) (map[string]any, error) {
	sess, err := c.lookup()
	if err != nil {
		return nil, err
	}
	op := sess.waiting()
	if op == nil {
		return nil, invalid("session_id", "invalid_state")
	}
	op.Stage = stageProcessing
	sess.settle(c.now)
	c.later(s.onOp(sess.ID, op.ID, stageProcessing, func(sess *session, op *operation, now time.Time) {
		s.cancelOp(sess, op, now, "canceled by partner")
	}))
	return c.sessionResult(sess), nil
}

// onOp returns a task that runs fn if the operation is still in stage st.
func (s *Server) onOp(sessionID, opID string, st stage, fn func(*session, *operation, time.Time)) func() {
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		sess := s.sessions[sessionID]
		if sess == nil {
			return
		}
		if op := sess.find(opID); op != nil && op.Stage == st {
			fn(sess, op, s.Now())
		}
	}
}

// cancelOp ends op as canceled (timeouts, partner cancel, declines).
func (s *Server) cancelOp(sess *session, op *operation, now time.Time, reason string) {
	if op.Frozen > 0 && op.Captured == 0 {
		s.book(sess, op, "", "hold_release", op.Frozen, 0, 0, now)
	}
	op.Status, op.Stage, op.FinishedAt, op.Reason, op.Interaction = statusCanceled, stageFinal, now, reason, false
	if op.Txn == nil { // payment_finished shows transaction_info and amounts
		op.Txn = s.newTxn()
	}
	if op.Captured == 0 {
		op.Fee = &amount{Value: 0, Currency: op.Amount.Currency} // nothing charged
	}
	sess.settle(now)
	s.emit(sess, EventPaymentFinished)
	s.log.Info("paysim operation canceled", "session_id", sess.ID, "operation_id", op.ID, "reason", reason)
}

// awaitConfirm: "service ready to process → ready_to_confirm webhook";
// 240 minutes without an answer cancel the operation.
func (s *Server) awaitConfirm(sess *session, op *operation, now time.Time) {
	op.Stage, op.Status = stageConfirm, statusPending
	sess.settle(now)
	s.emit(sess, EventReadyToConfirm)
	s.q.at(now.Add(ConfirmTimeout), s.onOp(sess.ID, op.ID, stageConfirm, func(sess *session, op *operation, now time.Time) {
		s.cancelOp(sess, op, now, "confirmation timeout")
	}))
}

// book records a money movement and applies its wallet delta.
func (s *Server) book(sess *session, op *operation, refundID, kind string, amt, fee, walletDelta int64, now time.Time) {
	if walletDelta != 0 {
		p := s.projects[sess.Project]
		p.wallets[op.Amount.Currency] = s.balance(p, op.Amount.Currency) + walletDelta
	}
	s.ledger.add(LedgerEntry{At: now, Project: sess.Project, SessionID: sess.ID, OperationID: op.ID, RefundID: refundID,
		Kind: kind, Amount: amt, Currency: op.Amount.Currency, Fee: fee, WalletDelta: walletDelta})
}
