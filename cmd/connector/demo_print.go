package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/paysession/paysession/internal/codec"
)

// printer writes one line per demo event: readable columns, or JSON lines
// with --json. Outcome records are printed from their decoded Avro form,
// which never carries a full card number.
type printer struct {
	w    io.Writer
	json bool
}

func (p *printer) line(what, text string) {
	if p.json {
		b, _ := json.Marshal(map[string]string{"event": what, "text": text})
		fmt.Fprintln(p.w, string(b))
		return
	}
	fmt.Fprintf(p.w, "%-11s %s\n", what, text)
}

func (p *printer) record(what string, v codec.Record, text string) {
	if !p.json {
		p.line(what, text)
		return
	}
	body, err := codec.Describe(v)
	if err != nil {
		body, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	fmt.Fprintf(p.w, "{\"event\":%q,\"record\":%s}\n", what, body)
}

func (p *printer) result(r *codec.CommandResult) {
	text := fmt.Sprintf("%-17s %-28s %-13s", r.Kind, r.IdempotencyKey, r.Status)
	if r.SessionID != nil {
		text += " session=" + *r.SessionID
	}
	text += fmt.Sprintf(" attempts=%d latency=%s", r.Attempts, time.Duration(r.LatencyMicros)*time.Microsecond)
	if r.ErrorCode != nil {
		text += " error=" + *r.ErrorCode
	}
	if r.ErrorField != nil {
		text += " field=" + *r.ErrorField
	}
	p.record("result", r, text)
}

func (p *printer) session(s *codec.SessionState) {
	text := fmt.Sprintf("%-10s %-12s via %-12s", s.Session.ID, s.Session.Status, s.Source)
	if s.Session.NextAction != nil {
		text += " next=" + *s.Session.NextAction
	}
	p.record("session", s, text+operations(&s.Session))
}

func (p *printer) webhook(e *codec.WebhookEvent) {
	p.record("webhook", e, fmt.Sprintf("%-10s %-17s%s", e.SessionID, e.Type, operations(&e.Session)))
}

func (p *printer) deadLetter(d *codec.DeadLetter) {
	text := fmt.Sprintf("key=%s from %s: %s", d.OriginalKey, d.OriginalTopic, d.Error)
	p.record("dead-letter", d, text)
}

func operations(s *codec.Session) string {
	var b strings.Builder
	for _, op := range s.Operations {
		fmt.Fprintf(&b, " | %s %s %s %s", op.Kind, op.ID, op.Status, money(op.Amount, op.Currency))
		if in := op.Instrument; in != nil && in.CardBIN != nil && in.CardLast4 != nil {
			fmt.Fprintf(&b, " card %s…%s", *in.CardBIN, *in.CardLast4)
		}
		for _, rf := range op.Refunds {
			kind := "refund"
			if rf.IsChargeback {
				kind = "chargeback"
			}
			fmt.Fprintf(&b, " [%s %s %s %s]", kind, rf.ID, rf.Status, money(rf.Amount, rf.Currency))
		}
	}
	return b.String()
}
