package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Paced is the paced-latency phase: the same init_payout commands at a
// steady rate (0 ms sandbox latency) through the connector and through the
// naive at-least-once loop on topics of the same layout, in alternating
// slices, on one broker and one sandbox. Latency is produce call → result readable
// (read_committed).
type Paced struct {
	RatePerSecond float64 `json:"rate_per_s"`
	Commands      int     `json:"commands"`
	Partitions    int     `json:"partitions"`
	// Engine signs the requests of both (signing.DefaultEngine of the build).
	Engine string `json:"signing_engine"`
	// Rounds is how many alternating slices each side's commands ran in.
	Rounds    int      `json:"rounds"`
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
	// BrokerGC counts the broker's pauses inside each side's slices
	// (brokergc.go); nil when the bench has no GC log of the broker.
	BrokerGC *PacedGC `json:"broker_gc_pauses,omitempty"`
}

// PacedGC is the broker's pauses met by each side of the paced phase.
type PacedGC struct {
	Connector GCPauses `json:"connector"`
	Naive     GCPauses `json:"naive_loop"`
	// Outside is each side's p99 without the commands a pause met.
	Outside PacedOutside `json:"outside_pauses"`
	// YoungBefore is how many young collections the broker had made before
	// the phase began: fewer than brokerSteadyAfter, and the phase met a
	// broker still in its first minute (brokergc.go).
	YoungBefore int `json:"young_collections_before"`
	// Error says why the log could not be read (then nothing was counted).
	Error string `json:"error,omitempty"`
}

// PacedOutside is the paced p99 of each side over the commands that were
// not in flight (sent, not yet readable) during any of the broker's
// pauses: what is left of the ratio once the pauses, which fall where they
// fall, are taken out. A readout beside the target, not the target: the
// connector's own traffic makes the broker collect more often, and the
// ratio counts that (README.md; RESULTS-archive.md, session 14).
type PacedOutside struct {
	Connector        float64 `json:"connector_p99_ms"`
	Naive            float64 `json:"naive_loop_p99_ms"`
	Ratio            float64 `json:"p99_ratio"`
	ConnectorLeftOut int     `json:"connector_left_out"`
	NaiveLeftOut     int     `json:"naive_loop_left_out"`
}

// PacedRun is one side of the paced phase, in milliseconds.
type PacedRun struct {
	P50MS float64 `json:"p50_ms"`
	P99MS float64 `json:"p99_ms"`
	MaxMS float64 `json:"max_ms"`
}

// measurePaced runs o.pacedCommands at o.pacedRate through the connector
// and as many through a naive loop started for the phase, in o.pacedRounds
// alternating slices (connector, naive loop, connector, ...) after a
// warm-up of each. One broker's state drifts over a phase (its garbage
// collector's pauses were the p99 of either side in most runs): slices
// make both sides meet the same drift, where two runs one after the other
// measured each in its own ten seconds.
func (e *env) measurePaced(ctx context.Context, o options, engine string) (Paced, error) {
	ph := Paced{RatePerSecond: o.pacedRate, Commands: o.pacedCommands, Partitions: o.partitions, Engine: engine, Rounds: o.pacedRounds}
	pausesBefore, _, _ := e.readBrokerPauses()
	naive, err := e.startNaive(ctx, o)
	if err != nil {
		return ph, fmt.Errorf("naive loop: %w", err)
	}
	// A failed loop ends the waits at once instead of at the bench timeout
	// (its error comes from stop).
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-naive.loop.stopped:
			cancel()
		case <-runCtx.Done():
		}
	}()
	stop := func(err error) error { return errors.Join(err, naive.stop()) }
	// Each side is warmed up by the same commands at the same pace,
	// unmeasured. A burst does not warm what the pace exercises: the broker
	// runs its transaction coordinator's per-transaction code interpreted
	// until it is hot, and the first hundreds of small transactions after a
	// burst took 4-6 ms per request (the JIT compiled about 3,000 methods,
	// transaction ones among them, in the first 2 s of pacing). The naive
	// loop uses no transaction.
	if _, err := e.pacedRun(runCtx, newBatch(e.cfg.Topics.Command["init_payout"], "paced-warmup", o.pacedWarmUp, o.partitions), e.results, o.pacedRate); err != nil {
		return ph, stop(fmt.Errorf("connector warm-up: %w", err))
	}
	if _, err := e.pacedRun(runCtx, newBatch(naive.commands, "naive-warmup", o.pacedWarmUp, o.partitions), naive.results, o.pacedRate); err != nil {
		return ph, stop(fmt.Errorf("naive loop warm-up: %w", err))
	}
	prof, err := startProfile(o.profileDir, "paced")
	if err != nil {
		return ph, stop(err)
	}
	before := readPipelineStats(e.conn.Registry)
	var conn, loop segments
	var connW, loopW []window
	err = func() error {
		for i, n := range splitEven(o.pacedCommands, o.pacedRounds) {
			seg, err := e.pacedRun(runCtx, newBatch(e.cfg.Topics.Command["init_payout"], fmt.Sprintf("paced-%d", i), n, o.partitions), e.results, o.pacedRate)
			if err != nil {
				return fmt.Errorf("connector: %w", err)
			}
			conn, connW = conn.join(seg), append(connW, seg.window())
			if seg, err = e.pacedRun(runCtx, newBatch(naive.commands, fmt.Sprintf("naive-paced-%d", i), n, o.partitions), naive.results, o.pacedRate); err != nil {
				return fmt.Errorf("naive loop: %w", err)
			}
			loop, loopW = loop.join(seg), append(loopW, seg.window())
		}
		return nil
	}()
	after := readPipelineStats(e.conn.Registry)
	ph.Profile = prof.stop()
	if err != nil {
		return ph, stop(err)
	}
	if err := stop(nil); err != nil {
		return ph, fmt.Errorf("naive loop: %w", err)
	}
	if o.pacedCSV != "" {
		if err := errors.Join(conn.writeCSV(o.pacedCSV+"-connector.csv"), loop.writeCSV(o.pacedCSV+"-naive.csv")); err != nil {
			return ph, err
		}
	}
	ph.Connector, ph.Naive = conn.run(), loop.run()
	ph.Segments = conn.quantiles()
	ph.Transactions, ph.MeanPhaseMS = after.since(before)
	if ph.Naive.P99MS > 0 {
		ph.P99Ratio = round(ph.Connector.P99MS/ph.Naive.P99MS, 2)
	}
	if pauses, errText, ok := e.readBrokerPauses(); ok {
		ph.BrokerGC = pacedGC(pauses, errText, conn, loop, connW, loopW)
		ph.BrokerGC.YoungBefore = youngCollections(pausesBefore)
	}
	return ph, nil
}

// pacedGC counts the broker's pauses in each side's slices and measures
// each side's p99 over the commands no pause met.
func pacedGC(pauses []gcPause, errText string, conn, loop segments, connW, loopW []window) *PacedGC {
	g := &PacedGC{Error: errText}
	if errText != "" {
		return g
	}
	g.Connector, g.Naive = pausesIn(pauses, connW), pausesIn(pauses, loopW)
	c, cLeft := conn.outside(pauses)
	n, nLeft := loop.outside(pauses)
	g.Outside = PacedOutside{Connector: c.run().P99MS, Naive: n.run().P99MS, ConnectorLeftOut: cLeft, NaiveLeftOut: nLeft}
	if g.Outside.Naive > 0 {
		g.Outside.Ratio = round(g.Outside.Connector/g.Outside.Naive, 2)
	}
	return g
}

// splitEven splits n commands into rounds slices as even as possible (fewer
// when n < rounds).
func splitEven(n, rounds int) []int {
	rounds = min(rounds, n)
	out := make([]int, rounds)
	for i := range out {
		out[i] = n / rounds
		if i < n%rounds {
			out[i]++
		}
	}
	return out
}

// naiveSide is the naive loop of the paced phase with its topics and the
// collector of its results.
type naiveSide struct {
	commands string
	results  *collector
	loop     *naiveLoop
}

// startNaive creates the naive loop's topics (commands with the
// connector's partitions, results with one like command-results) and
// starts the loop and the collector of its results.
func (e *env) startNaive(ctx context.Context, o options) (*naiveSide, error) {
	prefix := "bench-" + randomID() + "-naive-"
	commands, results := prefix+"commands", prefix+"results"
	for topic, partitions := range map[string]int32{commands: int32(o.partitions), results: 1} {
		if err := e.createTopic(ctx, topic, partitions, nil); err != nil {
			return nil, err
		}
	}
	c, err := startCollector(ctx, e.brokers, results)
	if err != nil {
		return nil, err
	}
	loop, err := e.startNaiveLoop(ctx, commands, results, prefix+"group")
	if err != nil {
		c.close()
		return nil, err
	}
	return &naiveSide{commands: commands, results: c, loop: loop}, nil
}

// stop stops the loop and the collector; it returns the loop's error.
func (n *naiveSide) stop() error {
	err := n.loop.stop()
	n.results.close()
	return err
}

// pacedRun paces b at rate and waits for every result in c; it returns
// each command's latency split into segments.
func (e *env) pacedRun(ctx context.Context, b *batch, c *collector, rate float64) (segments, error) {
	p := &producer{cl: e.producer, acked: make(map[string]time.Time, len(b.keys))}
	sent := pace(ctx, p, b.records, rate)
	if err := p.wait(); err != nil {
		return segments{}, err
	}
	arrived, err := c.wait(ctx, b.keys)
	if err != nil {
		return segments{}, err
	}
	return splitLatency(b.keys, sent, p.acked, c.producedAt(b.keys), arrived), nil
}
