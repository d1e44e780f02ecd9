package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/sessionwriter"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
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
			if p.cfg.Limits.Fits(r) {
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

func (p *Pipeline) outcomeRecords(ctx context.Context, out *outcome, now time.Time) ([]*kgo.Record, error) {
	var recs []*kgo.Record
	res, err := p.cfg.Encoder.Encode(ctx, p.cfg.Topics.Results, resultOf(out, now, p.cfg.APIVersion))
	if err != nil {
		return nil, fmt.Errorf("encode command result: %w", err)
	}
	ctx, span := startProduceSpan(ctx, out)
	defer span.End()
	defer func() { injectAll(ctx, recs) }()
	trace := traceHeaders(out.in.rec)
	key := []byte(out.in.outcomeKey())
	recs = append(recs, &kgo.Record{Topic: p.cfg.Topics.Results, Key: key, Value: res, Headers: trace})
	if out.verdict.deadLetter {
		dl, err := p.deadLetterRecord(ctx, out, key, now)
		if err != nil {
			return nil, err
		}
		recs = append(recs, dl)
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
		u, err := p.stateUpdate(ctx, st, append(slices.Clone(trace), sessionwriter.FromCommand()))
		if err != nil {
			return nil, err
		}
		if u != nil {
			recs = append(recs, u)
		}
	}
	return recs, nil
}

// stateUpdate encodes the update record of a session state. A state that
// would not fit the session-updates topic (Config.Limits) is encoded again
// without its operations' metadata, the one member a command sizes, and
// says so in header.Withheld; one that still would not fit is not
// published (logged): the command's result is, and a later state of the
// session (a webhook, a poll) reaches the sessions topic, so no record
// stalls the transaction.
func (p *Pipeline) stateUpdate(ctx context.Context, st *codec.SessionState, headers []kgo.RecordHeader) (*kgo.Record, error) {
	v, err := p.cfg.Encoder.Encode(ctx, p.cfg.Topics.SessionUpdates, st)
	if err != nil {
		return nil, fmt.Errorf("encode session state: %w", err)
	}
	u := sessionwriter.Update(p.cfg.Topics.SessionUpdates, st.Session.ID, v, headers...)
	if p.cfg.Limits.Fits(u) {
		return u, nil
	}
	lean := *st
	lean.Session.Operations = slices.Clone(st.Session.Operations)
	for i := range lean.Session.Operations {
		lean.Session.Operations[i].Metadata = nil
	}
	if v, err = p.cfg.Encoder.Encode(ctx, p.cfg.Topics.SessionUpdates, &lean); err != nil {
		return nil, fmt.Errorf("encode session state: %w", err)
	}
	u = sessionwriter.Update(p.cfg.Topics.SessionUpdates, st.Session.ID, v, append(slices.Clone(headers), header.New(header.Withheld, "metadata"))...)
	if p.cfg.Limits.Fits(u) {
		return u, nil
	}
	p.log.WarnContext(ctx, "session state too large for its topic even without metadata; not published",
		slog.String("session_id", st.Session.ID), slog.String("topic", p.cfg.Topics.SessionUpdates), slog.Int("bytes", len(v)))
	return nil, nil
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

// deadLetterRecord builds the dead-letter record of a command. A letter that
// would not fit the dead-letter topic (its max.message.bytes, Config.Limits)
// withholds the command's value, and then its headers too if still too
// large, saying so in header.DeadLetterValue and header.DeadLetterOriginalSize:
// a record that cannot be dead-lettered whole must not wedge its partition,
// and redrive reads the original from its source anyway.
func (p *Pipeline) deadLetterRecord(ctx context.Context, out *outcome, key []byte, now time.Time) (*kgo.Record, error) {
	l := p.protect(ctx, out.in.rec)
	build := func(l protectedLetter) (*kgo.Record, error) {
		v, err := p.cfg.Encoder.Encode(ctx, p.cfg.Topics.DeadLetter, deadLetterOf(out, l, now))
		if err != nil {
			return nil, fmt.Errorf("encode dead letter: %w", err)
		}
		hs := deadLetterHeaders(out, l.protection)
		if l.protection == codec.ValueWithheld && len(out.in.rec.Value) > 0 {
			hs = append(hs, header.NewInt(header.DeadLetterOriginalSize, int64(len(out.in.rec.Value))))
		}
		return &kgo.Record{Topic: p.cfg.Topics.DeadLetter, Key: key, Value: v, Headers: hs}, nil
	}
	r, err := build(l)
	if err != nil || p.cfg.Limits.Fits(r) {
		return r, err
	}
	l.value, l.protection = nil, codec.ValueWithheld
	if r, err = build(l); err != nil || p.cfg.Limits.Fits(r) {
		return r, err
	}
	l.headers = []kgo.RecordHeader{header.New(header.DeadLetterHeaders, "withheld")}
	return build(l)
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
