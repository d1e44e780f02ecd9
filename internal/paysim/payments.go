package paysim

import (
	"net/http"
	"time"
)

// Card payments: init/start, 3-D Secure (action_required, 60-minute
// cancel), hold (ready_to_capture) and capture, and completion
// (payment_finished with transaction_info, fees and a recurring token).

func (s *Server) initPayment(c *call) (map[string]any, error) {
	in, err := c.parseInput(true, c.project.RequireSender)
	if err != nil {
		return nil, err
	}
	if in.inst == nil {
		return nil, invalid("payment_details", "blank")
	}
	if in.amt == nil {
		return nil, invalid("amount_details", "blank")
	}
	if in.customer == nil {
		return nil, invalid("customer", "blank")
	}
	sess := c.newSession()
	s.addPayment(c, sess, in)
	return c.sessionResult(sess), nil
}

func newOperation(c *call, id string, in operationInput) *operation {
	return &operation{ID: id, Status: statusInProgress, Stage: stageProcessing, CreatedAt: c.now,
		Customer: in.customer, Instrument: in.inst, Amount: *in.amt, Options: in.options,
		Participants: in.participants, Metadata: in.metadata}
}

func (s *Server) addPayment(c *call, sess *session, in operationInput) {
	op := newOperation(c, s.nextID("pm"), in)
	sess.Payments = append(sess.Payments, op)
	s.opIndex[op.ID] = sess
	sess.settle(c.now)
	c.later(s.onOp(sess.ID, op.ID, stageProcessing, s.advancePayment))
}

// advancePayment is the service's processing of a payment in progress.
func (s *Server) advancePayment(sess *session, op *operation, now time.Time) {
	switch behaviourOf(op.Instrument.PAN) {
	case behave3DS, behave3DSPost:
		if !op.Authed {
			// action_required carries customer_interaction, amounts and transaction_info.
			op.Stage, op.Status, op.Interaction = stageAction, statusPending, true
			op.Fee, op.Txn = &amount{Value: fee(op.Amount.Value), Currency: op.Amount.Currency}, s.newTxn()
			sess.settle(now)
			s.emit(sess, EventActionRequired)
			s.q.at(now.Add(ActionTimeout), s.onOp(sess.ID, op.ID, stageAction, func(sess *session, op *operation, now time.Time) {
				s.cancelOp(sess, op, now, "customer action timeout")
			}))
			return
		}
	case behaveHold:
		op.Stage, op.Status, op.Frozen = stageHold, statusPending, op.Amount.Value
		s.book(sess, op, "", "hold", op.Amount.Value, 0, 0, now)
		sess.settle(now)
		s.emit(sess, EventReadyToCapture)
		return
	case behaveConfirm:
		s.awaitConfirm(sess, op, now)
		return
	}
	s.finish(sess, op, now)
}

// finish completes an operation: "service completes → operation succeeded
// (or another final status), session accepted, payment_finished".
func (s *Server) finish(sess *session, op *operation, now time.Time) {
	if op.Payout {
		s.finishPayout(sess, op, now)
		return
	}
	if behaviourOf(op.Instrument.PAN) == behaveDecline {
		s.cancelOp(sess, op, now, "declined by issuer")
		return
	}
	op.Captured = op.Amount.Value
	op.Fee = &amount{Value: fee(op.Amount.Value), Currency: op.Amount.Currency}
	s.book(sess, op, "", "payment", op.Captured, op.Fee.Value, 0, now)
	s.succeed(sess, op, now)
}

// succeed marks op succeeded and final and sends payment_finished.
func (s *Server) succeed(sess *session, op *operation, now time.Time) {
	op.Status, op.Stage, op.FinishedAt, op.Interaction = statusSucceeded, stageFinal, now, false
	if op.Txn == nil {
		op.Txn = s.newTxn()
	}
	// Sender-parameter countries allow one-time payments only: no token.
	if !op.Payout && op.Instrument.CardType == "bank_card" && op.Recurrent == nil && !s.projects[sess.Project].RequireSender {
		t := &recurrentToken{Token: "rt_" + s.dice.hex(32), Project: sess.Project, SessionID: sess.ID, PAN: op.Instrument.PAN, CreatedAt: now,
			FinishedAt: now.AddDate(3, 0, 0), Active: true}
		s.recurrent[t.Token] = t
		op.Recurrent = t
	}
	for _, r := range op.Refunds {
		if r.Release && r.Status == statusInProgress {
			r.Status, r.FinishedAt = statusAccepted, now
		}
	}
	sess.settle(now)
	s.emit(sess, EventPaymentFinished)
}

func (s *Server) newTxn() *txnInfo {
	return &txnInfo{RRN: s.dice.digits(12), AuthCode: s.dice.digits(6)}
}

// fee is the sandbox's merchant fee: 1% of the amount, rounded down.
func fee(v int64) int64 { return v / 100 }

// capture: "held payment → session/capture with an amount within the frozen
// amount → session in_progress, payment succeeded"; the uncaptured rest
// shows as a refund in_progress, released on completion.
func (s *Server) capture(c *call) (map[string]any, error) {
	sess, err := c.lookup()
	if err != nil {
		return nil, err
	}
	op := sess.waiting()
	if op == nil || op.Stage != stageHold {
		return nil, invalid("session_id", "invalid_state")
	}
	amt, err := amountIn(c.body, "amount_details", false)
	if err != nil {
		return nil, err
	}
	take := op.Frozen
	if amt != nil {
		if amt.Currency != op.Amount.Currency {
			return nil, invalid("amount_details.currency", "currency")
		}
		if amt.Value > op.Frozen {
			return nil, invalid("amount_details.amount", "exceeds_frozen")
		}
		take = amt.Value
	}
	op.Status, op.Stage, op.Captured = statusSucceeded, stageProcessing, take
	op.Fee = &amount{Value: fee(take), Currency: op.Amount.Currency}
	op.Txn = s.newTxn()
	s.book(sess, op, "", "payment", take, op.Fee.Value, 0, c.now)
	if rest := op.Frozen - take; rest > 0 {
		r := &refund{ID: s.nextID("rf"), Status: statusInProgress, CreatedAt: c.now, Release: true,
			Amount: amount{Value: rest, Currency: op.Amount.Currency}}
		op.Refunds = append(op.Refunds, r)
		s.book(sess, op, r.ID, "hold_release", rest, 0, 0, c.now)
	}
	sess.settle(c.now)
	c.later(s.onOp(sess.ID, op.ID, stageProcessing, s.succeed))
	return c.sessionResult(sess), nil
}

// serve3DS is the customer's 3-D Secure page (GET/POST
// /sandbox/3ds?operation_id=pm_N&result=success|fail, or a POST form with
// MD=pm_N as the POST redirect sends it; no signature).
func (s *Server) serve3DS(w http.ResponseWriter, r *http.Request) {
	opID := r.FormValue("operation_id")
	if opID == "" {
		opID = r.FormValue("MD")
	}
	ok := r.FormValue("result") != "fail"
	if err := s.Complete3DS(opID, ok); err != nil {
		writeError(w, err)
		return
	}
	writeRaw(w, http.StatusOK, []byte(`{"status":"ok"}`))
}

// Complete3DS finishes the customer action of a payment waiting for 3-D
// Secure: passed continues processing, failed cancels the operation.
func (s *Server) Complete3DS(operationID string, passed bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.opIndex[operationID]
	if sess == nil {
		return recordNotFound()
	}
	op := sess.find(operationID)
	if op == nil || op.Stage != stageAction {
		return invalid("operation_id", "invalid_state")
	}
	now := s.Now()
	if !passed {
		s.cancelOp(sess, op, now, "3-D Secure failed")
		return nil
	}
	op.Authed, op.Interaction, op.Stage, op.Status = true, false, stageProcessing, statusInProgress
	sess.settle(now)
	s.q.after(s.cfg.ProcessingDelay, s.onOp(sess.ID, op.ID, stageProcessing, s.advancePayment))
	return nil
}
