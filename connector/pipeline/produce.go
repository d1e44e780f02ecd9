package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// recordsOf turns a batch's outcomes into records, in batch order: for each
// command its result (and dead letter), the session states it learned, or
// the retry record that parks it.
func (p *Pipeline) recordsOf(ctx context.Context, b *batch) ([]*kgo.Record, error) {
	now := p.clock.Now()
	var recs []*kgo.Record
	for _, in := range b.ins {
		out := b.outcomes[in]
		if out == nil {
			return nil, fmt.Errorf("command %s at %s/%d/%d has no outcome", in.kind, in.src.Topic, in.src.Partition, in.src.Offset)
		}
		if out.park != nil {
			recs = append(recs, retryRecord(out, p.cfg.Topics.Retry))
			continue
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
	trace := traceHeaders(out.in.rec)
	recs = append(recs, &kgo.Record{Topic: p.cfg.Topics.Results, Key: []byte(out.in.key), Value: res, Headers: trace})
	if out.verdict.deadLetter {
		l := p.protect(ctx, out.in.rec)
		dl, err := p.cfg.Encoder.Encode(ctx, p.cfg.Topics.DeadLetter, deadLetterOf(out, l, now))
		if err != nil {
			return nil, fmt.Errorf("encode dead letter: %w", err)
		}
		recs = append(recs, &kgo.Record{Topic: p.cfg.Topics.DeadLetter, Key: out.in.rec.Key, Value: dl,
			Headers: deadLetterHeaders(out, l.protection)})
	}
	for _, l := range sessionStates(out) {
		st := p.cfg.States(l.session, string(l.source), now, p.cfg.APIVersion)
		if st == nil || (p.cfg.Tracker != nil && !p.cfg.Tracker.Admit(ctx, st)) {
			continue
		}
		if l.source == codec.SourceAPIResponse {
			k := out.in.key
			st.IdempotencyKey = &k
		}
		v, err := p.cfg.Encoder.Encode(ctx, p.cfg.Topics.Sessions, st)
		if err != nil {
			return nil, fmt.Errorf("encode session state: %w", err)
		}
		recs = append(recs, &kgo.Record{Topic: p.cfg.Topics.Sessions, Key: []byte(st.Session.ID), Value: v, Headers: trace})
	}
	return recs, nil
}
