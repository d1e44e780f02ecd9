package pipeline

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/sessionwriter"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
	"github.com/paysession/paysession/internal/outbound"
)

// recordsOf turns a batch's outcomes into records, in batch order: for each
// command its result (and dead letter), the session states it learned
// (naming the command's project), or the retry record that parks it.
func (p *Pipeline) recordsOf(ctx context.Context, b *batch) ([]*kgo.Record, error) {
	now := p.clock.Now()
	var recs []*kgo.Record
	for _, in := range b.ins {
		out := b.outcomes[in]
		if out == nil {
			return nil, fmt.Errorf("command %s at %s/%d/%d has no outcome", in.kind, in.src.Topic, in.src.Partition, in.src.Offset)
		}
		if out.park != nil {
			r := retryRecord(out, p.cfg.Topics.Retry)
			injectAll(in.traced(ctx), []*kgo.Record{r}) // the next attempt continues the command's trace
			// A retry record has one form (it carries no value): one that
			// does not fit gets the command's final result instead.
			if p.pinned.sizer.Fits(r) {
				recs = append(recs, r)
				continue
			}
			out = p.unparkable(out, now)
			b.mu.Lock()
			b.outcomes[in] = out
			b.mu.Unlock()
		}
		rs, err := p.outcomeRecords(ctx, out, now)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rs...)
	}
	return recs, nil
}

// outcomeRecords returns the records of a finished command: its result,
// its dead letter, and the session states it learned. Each is sized by the
// pipeline's Sizer (outbound.Sizer): written in the first of its forms that
// fits its topic (resultForms, deadLetterForms, outbound.StateForms), else
// left out, counted and logged, so that no record the topic refuses enters
// the transaction.
func (p *Pipeline) outcomeRecords(ctx context.Context, out *outcome, now time.Time) ([]*kgo.Record, error) {
	ctx, span := startProduceSpan(ctx, out)
	defer span.End()
	trace := traceHeaders(out.in.rec)
	key := []byte(out.in.outcomeKey())
	var recs []*kgo.Record
	fit := func(base kgo.Record, forms []outbound.Form) error {
		injectAll(ctx, []*kgo.Record{&base}) // before sizing: the trace headers count
		r, err := p.pinned.sizer.Fit(ctx, p.cfg.Encoder, base, forms...)
		if r != nil {
			recs = append(recs, r)
		}
		return err
	}
	res := resultOf(out, now, p.cfg.APIVersion)
	if err := fit(kgo.Record{Topic: p.cfg.Topics.Results, Key: key, Headers: slices.Clone(trace)}, resultForms(res)); err != nil {
		return nil, fmt.Errorf("command result: %w", err)
	}
	if out.verdict.deadLetter {
		if err := fit(kgo.Record{Topic: p.cfg.Topics.DeadLetter, Key: key}, p.deadLetterForms(ctx, out, now)); err != nil {
			return nil, fmt.Errorf("dead letter: %w", err)
		}
	}
	for _, l := range sessionStates(out) {
		st := p.cfg.States(l.session, string(l.source), now, p.cfg.APIVersion)
		if st == nil {
			continue
		}
		if l.source == codec.SourceAPIResponse {
			k := out.in.key
			st.IdempotencyKey = &k
		}
		st.Project = projectOf(out)
		base := sessionwriter.Update(p.cfg.Topics.SessionUpdates, st.Session.ID, nil, append(slices.Clone(trace), sessionwriter.FromCommand())...)
		if err := fit(*base, outbound.StateForms(st)); err != nil {
			return nil, fmt.Errorf("session state: %w", err)
		}
	}
	return recs, nil
}

// resultForms are the forms of a command result: whole, then without its
// error description (header.Withheld "error_description"). Results are
// small (the description is cut to maxDescription), so only a topic
// limited to less than a few kilobytes needs the second.
func resultForms(res *codec.CommandResult) []outbound.Form {
	forms := []outbound.Form{{Value: res}}
	if res.ErrorDescription != nil {
		lean := *res
		lean.ErrorDescription = nil
		forms = append(forms, outbound.Form{Value: &lean, Withheld: "error_description"})
	}
	return forms
}

// projectOf is the partner project a command's session states name: the
// one the command names, nil for the default project. The reconciler
// polls the session under it (a session is found under its own project
// only).
func projectOf(out *outcome) *string {
	if out.in.cmd == nil || out.in.cmd.project == "" {
		return nil
	}
	p := out.in.cmd.project
	return &p
}

// deadLetterForms are the forms of a command's dead letter: with its
// protected value and headers, then without the value, then without the
// headers too, each saying so in header.DeadLetterValue,
// header.DeadLetterOriginalSize and header.DeadLetterHeaders: a record that
// cannot be dead-lettered whole must not wedge its partition, and redrive
// reads the original from its source anyway.
func (p *Pipeline) deadLetterForms(ctx context.Context, out *outcome, now time.Time) []outbound.Form {
	form := func(l protectedLetter) outbound.Form {
		hs := deadLetterHeaders(out, l.protection)
		if l.protection == codec.ValueWithheld && len(out.in.rec.Value) > 0 {
			hs = append(hs, header.NewInt(header.DeadLetterOriginalSize, int64(len(out.in.rec.Value))))
		}
		return outbound.Form{Value: deadLetterOf(out, l, now), Headers: hs}
	}
	l := p.protect(ctx, out.in.rec)
	forms := []outbound.Form{form(l)}
	l.value, l.protection = nil, codec.ValueWithheld
	forms = append(forms, form(l))
	l.headers = []kgo.RecordHeader{header.New(header.DeadLetterHeaders, "withheld")}
	return append(forms, form(l))
}

// unparkable ends a command that should be parked but whose retry record
// would not fit the retry topic (one with a limit smaller than the record's
// headers): it gets its final result now instead of wedging the partition —
// indeterminate when an attempt may have reached the service, else
// rejected, never sent.
func (p *Pipeline) unparkable(out *outcome, now time.Time) *outcome {
	r := out.park.retry
	desc := fmt.Sprintf("the retry record of this command does not fit the retry topic %s", p.cfg.Topics.Retry)
	v := verdict{Status: codec.StatusRejected, Code: "record_too_large", Description: desc + "; not sent"}
	if r.sent {
		v = verdict{Status: codec.StatusIndeterminate, Code: "record_too_large",
			Description: desc + "; an earlier attempt may have reached the service"}
	}
	return &outcome{in: out.in, verdict: v, sessionID: out.sessionID, attempts: r.attempts, first: r.firstAttempt,
		last: r.firstAttempt, latency: now.Sub(out.in.firstSeen)}
}
