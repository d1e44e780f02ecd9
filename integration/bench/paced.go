package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Paced is the paced-latency phase: the same init_payout commands at a
// steady rate (0 ms sandbox latency), first through the connector, then
// through the naive at-least-once loop on topics of the same layout, on one
// broker and one sandbox. Latency is produce call → result readable
// (read_committed).
type Paced struct {
	RatePerSecond float64 `json:"rate_per_s"`
	Commands      int     `json:"commands"`
	Partitions    int     `json:"partitions"`
	// Engine signs the requests of both (signing.DefaultEngine of the build).
	Engine    string   `json:"signing_engine"`
	Connector PacedRun `json:"connector"`
	Naive     PacedRun `json:"naive_loop"`
	P99Ratio  float64  `json:"connector_to_naive_p99_ratio"`
	// Segments split the connector's latency as in the half-max phase
	// (command acked, result produced, result readable); Transactions and
	// MeanPhaseMS are its transactions during the phase.
	Segments     map[string]Quantiles `json:"connector_segments_ms,omitempty"`
	Transactions int                  `json:"connector_transactions,omitempty"`
	MeanPhaseMS  map[string]float64   `json:"connector_mean_transaction_phase_ms,omitempty"`
	Profile      string               `json:"profile,omitempty"`
}

// PacedRun is one side of the paced phase, in milliseconds.
type PacedRun struct {
	P50MS float64 `json:"p50_ms"`
	P99MS float64 `json:"p99_ms"`
	MaxMS float64 `json:"max_ms"`
}

// measurePaced runs o.pacedCommands at o.pacedRate through the connector
// and then through a naive loop started for the phase.
func (e *env) measurePaced(ctx context.Context, o options, engine string) (Paced, error) {
	ph := Paced{RatePerSecond: o.pacedRate, Commands: o.pacedCommands, Partitions: o.partitions, Engine: engine}
	// The same warm-up as the naive loop's, right before the paced run: the
	// same commands at the same pace, unmeasured. A burst does not warm what
	// the pace exercises: the broker runs its transaction coordinator's
	// per-transaction code interpreted until it is hot, and the first
	// hundreds of small transactions after a burst took 4-6 ms per request
	// (the JIT compiled about 3,000 methods, transaction ones among them, in
	// the first 2 s of pacing). The naive loop uses no transaction.
	if _, _, err := e.pacedRun(ctx, newBatch(e.cfg.Topics.InitPayout, "paced-warmup", o.pacedWarmUp, o.partitions), e.results, o.pacedRate); err != nil {
		return ph, fmt.Errorf("connector warm-up: %w", err)
	}
	prof, err := startProfile(o.profileDir, "paced")
	if err != nil {
		return ph, err
	}
	b := newBatch(e.cfg.Topics.InitPayout, "paced", o.pacedCommands, o.partitions)
	before := readPipelineStats(e.conn.Registry)
	var seg segments
	ph.Connector, seg, err = e.pacedRun(ctx, b, e.results, o.pacedRate)
	if err == nil && o.pacedCSV != "" {
		err = seg.writeCSV(o.pacedCSV + "-connector.csv")
	}
	if err == nil {
		ph.Segments = seg.quantiles()
		after := readPipelineStats(e.conn.Registry)
		ph.Transactions, ph.MeanPhaseMS = after.since(before)
	}
	if err != nil {
		err = fmt.Errorf("connector: %w", err)
	} else if ph.Naive, err = e.measureNaive(ctx, o); err != nil {
		err = fmt.Errorf("naive loop: %w", err)
	}
	ph.Profile = prof.stop()
	if err != nil {
		return ph, err
	}
	if ph.Naive.P99MS > 0 {
		ph.P99Ratio = round(ph.Connector.P99MS/ph.Naive.P99MS, 2)
	}
	return ph, nil
}

// measureNaive creates the naive loop's topics (commands with the
// connector's partitions, results with one like command-results), warms
// the loop up and paces the phase's commands through it.
func (e *env) measureNaive(ctx context.Context, o options) (PacedRun, error) {
	prefix := "bench-" + randomID() + "-naive-"
	commands, results := prefix+"commands", prefix+"results"
	for topic, partitions := range map[string]int32{commands: int32(o.partitions), results: 1} {
		res, err := e.admin.CreateTopic(ctx, partitions, -1, nil, topic)
		if err == nil {
			err = res.Err
		}
		if err != nil {
			return PacedRun{}, fmt.Errorf("create topic %s: %w", topic, err)
		}
		e.topics = append(e.topics, topic)
	}
	c, err := startCollector(ctx, e.brokers, results)
	if err != nil {
		return PacedRun{}, err
	}
	defer c.close()
	loop, err := e.startNaiveLoop(ctx, commands, results, prefix+"group")
	if err != nil {
		return PacedRun{}, err
	}
	// A failed loop ends the waits at once instead of at the bench timeout
	// (its error comes from stop).
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-loop.stopped:
			cancel()
		case <-runCtx.Done():
		}
	}()
	if _, _, err := e.pacedRun(runCtx, newBatch(commands, "naive-warmup", o.pacedWarmUp, o.partitions), c, o.pacedRate); err != nil {
		return PacedRun{}, errors.Join(fmt.Errorf("warm-up: %w", err), loop.stop())
	}
	run, seg, err := e.pacedRun(runCtx, newBatch(commands, "naive-paced", o.pacedCommands, o.partitions), c, o.pacedRate)
	if err == nil && o.pacedCSV != "" {
		err = seg.writeCSV(o.pacedCSV + "-naive.csv")
	}
	return run, errors.Join(err, loop.stop())
}

// pacedRun paces b at rate and waits for every result in c; it also
// returns each command's latency split into segments.
func (e *env) pacedRun(ctx context.Context, b *batch, c *collector, rate float64) (PacedRun, segments, error) {
	p := &producer{cl: e.producer, acked: make(map[string]time.Time, len(b.keys))}
	sent := pace(ctx, p, b.records, rate)
	if err := p.wait(); err != nil {
		return PacedRun{}, segments{}, err
	}
	arrived, err := c.wait(ctx, b.keys)
	if err != nil {
		return PacedRun{}, segments{}, err
	}
	seg := splitLatency(b.keys, sent, p.acked, c.producedAt(b.keys), arrived)
	return PacedRun{P50MS: ms(percentile(seg.total, 50)), P99MS: ms(percentile(seg.total, 99)), MaxMS: ms(percentile(seg.total, 100))}, seg, nil
}
