package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// The demo story, as an upstream order and payroll system plays it: it
// writes commands, reads the outcome topics, and reacts to what it reads
// (confirms a large payout, captures a hold, refunds part of it, disables
// a recurring token). The sandbox's admin API stands in for the card
// network (the chargeback) and for the partner's token store.
const (
	card        = `{"type":"card","card":{"type":"bank_card","bank_card":{"number":"%s","expiration_month":"12","expiration_year":"29"}}}`
	paymentCard = `{"type":"card","card":{"type":"bank_card","bank_card":{"number":"%s","expiration_month":"12","expiration_year":"29","security_code":"%s"}}}`
)

type storyCommand struct {
	kind, key, value string
}

var openingCommands = []storyCommand{
	{"init_payout", "payroll-2026-11-001", fmt.Sprintf(`{"instrument":`+card+`,"amount":250000,"currency":"rub","customer":{"reference":"employee-001"}}`, "4111111111111111")},
	{"init_payout", "payroll-2026-11-002", fmt.Sprintf(`{"instrument":`+card+`,"amount":180000,"currency":"rub","customer":{"reference":"employee-002"}}`, "4111111111111111")},
	{"init_payout", "payroll-2026-11-003", fmt.Sprintf(`{"instrument":`+card+`,"amount":1250000,"currency":"rub","customer":{"reference":"employee-003"}}`, "4111111111111111")},
	{"init_payment", "order-7731-hold", fmt.Sprintf(`{"instrument":`+paymentCard+`,"amount":500000,"currency":"rub","customer":{"reference":"customer-17"}}`, "5555555555554444", "737")},
	{"init_payment", "order-7732-pay", fmt.Sprintf(`{"instrument":`+paymentCard+`,"amount":120000,"currency":"rub","customer":{"reference":"customer-18"}}`, "4111111111111111", "737")},
	{"fps_verification", "fps-check-0042", `{"phone":"79000000000","bank_id":"100000000111","recipient":{"first_name":"Ivan","last_name":"Petrov","middle_name":"Sergeevich"}}`},
	{"init_payout", "payroll-2026-11-bad", `{"instrument":{"type":"card"},"amout":100,"currency":"rub"}`},
}

// step is one thing the story waits to see.
type step struct {
	name string
	done bool
}

type story struct {
	env     *demoEnv
	cl      *kgo.Client
	dec     *codec.Decoder
	p       *printer
	session map[string]string // idempotency key → session id
	acted   map[string]bool   // follow-ups already sent
	payout  map[string]string // session id → last payout status seen
	latest  map[string]*codec.Session
	version map[string]codec.SessionVersion
	steps   []*step
	byName  map[string]*step
	records int
}

func playStory(ctx context.Context, env *demoEnv, p *printer) error {
	cl, err := newDemoClient(env)
	if err != nil {
		return err
	}
	defer cl.Close()
	dec, err := codec.NewDecoder(codec.DecoderConfig{})
	if err != nil {
		return err
	}
	s := &story{env: env, cl: cl, dec: dec, p: p, session: map[string]string{}, acted: map[string]bool{}, payout: map[string]string{}, latest: map[string]*codec.Session{}, version: map[string]codec.SessionVersion{}, byName: map[string]*step{}}
	for _, n := range []string{"payroll payouts succeeded", "large payout confirmed upstream", "hold captured",
		"partial refund accepted", "chargeback reported", "recurring token disabled", "FPS recipient verified",
		"invalid command dead-lettered"} {
		st := &step{name: n}
		s.steps, s.byName[n] = append(s.steps, st), st
	}
	for _, c := range openingCommands {
		if err := s.send(ctx, c); err != nil {
			return err
		}
	}
	for !s.finished() {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return fmt.Errorf("story not done: missing %s", strings.Join(s.missing(), ", "))
		}
		var ferr error
		fetches.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return ferr
		}
		for _, r := range fetches.Records() {
			if err := s.observe(ctx, r); err != nil {
				return err
			}
		}
	}
	p.line("story", fmt.Sprintf("done: %d steps, %d outcome events", len(s.steps), s.records))
	return nil
}

func (s *story) send(ctx context.Context, c storyCommand) error {
	topic := s.env.cfg.Topics.Commands()[c.kind]
	s.p.line("command", fmt.Sprintf("%-17s %-28s → %s", c.kind, c.key, topic))
	return s.cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Key: []byte(c.key), Value: []byte(c.value)}).FirstErr()
}

func (s *story) finished() bool { return len(s.missing()) == 0 }

func (s *story) missing() []string {
	var out []string
	for _, st := range s.steps {
		if !st.done {
			out = append(out, st.name)
		}
	}
	return out
}

func (s *story) mark(name string) {
	if st := s.byName[name]; !st.done {
		st.done = true
		s.p.line("story", "✓ "+name)
	}
}

// observe prints one outcome record and moves the story on.
func (s *story) observe(ctx context.Context, r *kgo.Record) error {
	s.records++
	t := s.env.cfg.Topics
	switch r.Topic {
	case t.CommandResults:
		var res codec.CommandResult
		if err := s.dec.DecodeRecord(ctx, r.Value, &res); err != nil {
			return fmt.Errorf("%s: %w", r.Topic, err)
		}
		s.p.result(&res)
		return s.onResult(ctx, &res)
	case t.Sessions:
		var st codec.SessionState
		if err := s.dec.DecodeRecord(ctx, r.Value, &st); err != nil {
			return fmt.Errorf("%s: %w", r.Topic, err)
		}
		s.p.session(&st)
		// A transactional state from an API response can become visible
		// after a newer webhook state: consumers keep the newest by version.
		if last, ok := s.version[st.Session.ID]; ok && !codec.Newer(codec.VersionOf(&st), last) {
			return nil
		}
		s.version[st.Session.ID] = codec.VersionOf(&st)
		return s.onSession(ctx, &st.Session)
	case t.WebhookEvents:
		var ev codec.WebhookEvent
		if err := s.dec.DecodeRecord(ctx, r.Value, &ev); err != nil {
			return fmt.Errorf("%s: %w", r.Topic, err)
		}
		s.p.webhook(&ev)
		s.onWebhook(&ev)
	case t.DeadLetter:
		var dl codec.DeadLetter
		if err := s.dec.DecodeRecord(ctx, r.Value, &dl); err != nil {
			return fmt.Errorf("%s: %w", r.Topic, err)
		}
		s.p.deadLetter(&dl)
	}
	return nil
}

func (s *story) onResult(ctx context.Context, res *codec.CommandResult) (err error) {
	ok := res.Status == codec.StatusAccepted
	defer func() {
		// A session's webhooks can arrive before the result that names it
		// (results commit with their batch): react to what was seen so far.
		if res.SessionID != nil {
			s.session[res.IdempotencyKey] = *res.SessionID
			if last := s.latest[*res.SessionID]; last != nil {
				err = s.onSession(ctx, last)
			}
		}
	}()
	switch res.IdempotencyKey {
	case "payroll-2026-11-003-confirm":
		if ok {
			s.mark("large payout confirmed upstream")
		}
	case "order-7731-hold-capture":
		if ok {
			s.mark("hold captured")
		}
	case "order-7732-pay-disable-token":
		if ok {
			s.mark("recurring token disabled")
		}
	case "fps-check-0042":
		if ok {
			s.mark("FPS recipient verified")
		}
	case "payroll-2026-11-bad":
		if res.Status == codec.StatusInvalid {
			s.mark("invalid command dead-lettered")
		}
	}
	return nil
}

// onSession reacts to session states as the upstream system would.
func (s *story) onSession(ctx context.Context, sess *codec.Session) error {
	s.latest[sess.ID] = sess
	if st := opStatus(sess, codec.OperationPayout); st != "" {
		s.payout[sess.ID] = st
	}
	next := ""
	if sess.NextAction != nil {
		next = *sess.NextAction
	}
	switch sess.ID {
	case s.session["payroll-2026-11-003"]:
		if next == "confirm" {
			return s.once(ctx, storyCommand{"confirm", "payroll-2026-11-003-confirm", `{"session_id":"` + sess.ID + `"}`})
		}
	case s.session["order-7731-hold"]:
		if next == "capture" {
			return s.once(ctx, storyCommand{"capture", "order-7731-hold-capture", `{"session_id":"` + sess.ID + `"}`})
		}
		// A payment is refundable once its session is final: the capture's
		// own answer may already show the payment succeeded while the
		// session is still in progress, and the service refuses a refund
		// then (invalid_request on session_id).
		if s.byName["hold captured"].done && sess.Status == "accepted" && opStatus(sess, codec.OperationPayment) == "succeeded" {
			return s.once(ctx, storyCommand{"refund", "order-7731-hold-refund", `{"session_id":"` + sess.ID + `","amount":150000,"currency":"rub"}`})
		}
	case s.session["order-7732-pay"]:
		if opStatus(sess, codec.OperationPayment) == "succeeded" && !s.acted["chargeback"] {
			s.acted["chargeback"] = true
			if _, err := s.env.sandbox.Chargeback(sess.ID, 0); err != nil {
				return fmt.Errorf("chargeback: %w", err)
			}
			s.p.line("story", "card network reports a chargeback on "+sess.ID)
			// The payment's recurring token, as the session state carries it.
			for _, op := range sess.Operations {
				if op.Kind == codec.OperationPayment && op.RecurringToken != nil && op.RecurringToken.Token != "" {
					return s.once(ctx, storyCommand{"disable_recurring", "order-7732-pay-disable-token",
						`{"token":"` + op.RecurringToken.Token + `"}`})
				}
			}
		}
	}
	if s.payoutsDone() {
		s.mark("payroll payouts succeeded")
	}
	return nil
}

func (s *story) onWebhook(ev *codec.WebhookEvent) {
	if ev.Type != "payment_refunded" {
		return
	}
	for _, op := range ev.Session.Operations {
		for _, rf := range op.Refunds {
			switch {
			case rf.IsChargeback && ev.SessionID == s.session["order-7732-pay"]:
				s.mark("chargeback reported")
			case !rf.IsChargeback && ev.SessionID == s.session["order-7731-hold"] && rf.Status == "accepted":
				s.mark("partial refund accepted")
			}
		}
	}
}

func (s *story) payoutsDone() bool {
	keys := []string{"payroll-2026-11-001", "payroll-2026-11-002", "payroll-2026-11-003"}
	for _, k := range keys {
		if s.payout[s.session[k]] != "succeeded" {
			return false
		}
	}
	return true
}

func (s *story) once(ctx context.Context, c storyCommand) error {
	if s.acted[c.key] {
		return nil
	}
	s.acted[c.key] = true
	return s.send(ctx, c)
}

func opStatus(sess *codec.Session, kind codec.OperationKind) string {
	for _, op := range sess.Operations {
		if op.Kind == kind {
			return op.Status
		}
	}
	return ""
}
