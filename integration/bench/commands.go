package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// payoutCommand is the init_payout every command phase sends: a payout to
// the sandbox's succeeding test card, below the confirmation threshold.
const payoutCommand = `{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4111111111111111",` +
	`"expiration_month":"12","expiration_year":"29"}}},"amount":250000,"currency":"rub","customer":{"reference":"bench-%d"}}`

// batch is a set of commands of one phase, keyed bench-<run>-<phase>-<i>.
type batch struct {
	keys    []string
	records []*kgo.Record
}

func newBatch(topic, phase string, n, partitions int) *batch {
	run := randomID()
	b := &batch{keys: make([]string, n), records: make([]*kgo.Record, n)}
	for i := range n {
		b.keys[i] = fmt.Sprintf("bench-%s-%s-%d", run, phase, i)
		b.records[i] = &kgo.Record{Topic: topic, Partition: int32(i % partitions), Key: []byte(b.keys[i]),
			Value: []byte(fmt.Sprintf(payoutCommand, i))}
	}
	return b
}

// producer sends records asynchronously and remembers the first error.
type producer struct {
	cl  *kgo.Client
	wg  sync.WaitGroup
	mu  sync.Mutex
	err error
	// acked, when not nil, receives when the broker acknowledged each
	// record, by key.
	acked map[string]time.Time
}

func (p *producer) send(ctx context.Context, r *kgo.Record) {
	p.wg.Add(1)
	p.cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
		defer p.wg.Done()
		now := time.Now()
		p.mu.Lock()
		defer p.mu.Unlock()
		if err != nil && p.err == nil {
			p.err = fmt.Errorf("produce: %w", err)
		}
		if p.acked != nil {
			p.acked[string(r.Key)] = now
		}
	})
}

func (p *producer) wait() error {
	p.wg.Wait()
	return p.err
}

// runBatch produces every record at once and waits for every result of
// the connector; it returns when the first was produced and when the last
// result arrived.
func (e *env) runBatch(ctx context.Context, b *batch) (start, last time.Time, err error) {
	p := &producer{cl: e.producer}
	start = time.Now()
	for _, r := range b.records {
		p.send(ctx, r)
	}
	if err := p.wait(); err != nil {
		return start, start, err
	}
	arrived, err := e.results.wait(ctx, b.keys)
	if err != nil {
		return start, start, err
	}
	for _, t := range arrived {
		if t.After(last) {
			last = t
		}
	}
	return start, last, nil
}

// pace produces records at rate per second, in order, and returns when
// each produce call was made.
func pace(ctx context.Context, p *producer, records []*kgo.Record, rate float64) []time.Time {
	sent := make([]time.Time, len(records))
	const tick = 5 * time.Millisecond
	start := time.Now()
	for i := 0; i < len(records) && ctx.Err() == nil; {
		due := min(len(records), int(time.Since(start).Seconds()*rate)+1)
		for ; i < due; i++ {
			sent[i] = time.Now()
			p.send(ctx, records[i])
		}
		time.Sleep(tick) // pacing of the steady rate, not a wait for a condition
	}
	return sent
}
