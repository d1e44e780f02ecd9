package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paysession/paysession/internal/paysim"
	"github.com/paysession/paysession/internal/signing"
)

// measureSigning counts RSA-2048 signatures of a typical request body made
// by goroutines signers in d.
func measureSigning(ctx context.Context, goroutines int, d time.Duration) (Signing, error) {
	key, err := signing.GenerateKey(2048)
	if err != nil {
		return Signing{}, err
	}
	s := signing.NewRSASigner(key, signing.PKCS1v15)
	body := []byte(fmt.Sprintf(payoutCommand, 1))
	var n atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for range goroutines {
		wg.Go(func() {
			for time.Now().Before(deadline) && ctx.Err() == nil {
				if _, err := s.Sign(body); err == nil {
					n.Add(1)
				}
			}
		})
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	return Signing{Goroutines: goroutines, Seconds: round(secs, 2), PerSecond: round(float64(n.Load())/secs, 1)}, ctx.Err()
}

// measureThroughput produces o.commands commands to o.partitions partitions
// at once and times them until every result is readable.
func (e *env) measureThroughput(ctx context.Context, o options, sign Signing) (Throughput, error) {
	b := newBatch(e.cfg.Topics.InitPayout, "throughput", o.commands, o.partitions)
	prof, err := startProfile(o.profileDir, "throughput")
	if err != nil {
		return Throughput{}, err
	}
	cpu0 := cpuTime()
	start, last, err := e.runBatch(ctx, b)
	cpu := cpuTime() - cpu0
	path := prof.stop()
	if err != nil {
		return Throughput{}, err
	}
	secs := last.Sub(start).Seconds()
	t := Throughput{Commands: o.commands, Partitions: o.partitions, MaxInFlight: o.maxInFlight, Seconds: round(secs, 3),
		PerSecond: round(float64(o.commands)/secs, 1), ProcessCPU: round(cpu.Seconds(), 3),
		ProcessCPUPerCmd: round(cpu.Seconds()*1000/float64(o.commands), 4), Profile: path}
	t.CeilingFraction = round(t.PerSecond/sign.PerSecond, 3)
	t.CoresUsed = round(cpu.Seconds()/secs, 2)
	if share, err := labelShare(path, "part", "connector"); err == nil {
		t.ConnectorShare = round(share, 3)
		t.ConnectorCPUPerCmd = round(t.ProcessCPUPerCmd*share, 4)
		signMS := float64(sign.Goroutines) * 1000 / sign.PerSecond
		t.ConnectorEfficiency = round(signMS/(cpu.Seconds()*1000/float64(o.commands)*share), 3)
	}
	return t, nil
}

// measureLatency produces at rate commands/s for o.latencyFor and reports
// the time from produce to readable result of each command.
func (e *env) measureLatency(ctx context.Context, o options, rate float64) (Latency, error) {
	n := max(1, int(rate*o.latencyFor.Seconds()))
	b := newBatch(e.cfg.Topics.InitPayout, "latency", n, o.partitions)
	prof, err := startProfile(o.profileDir, "latency")
	if err != nil {
		return Latency{}, err
	}
	sent := make([]time.Time, n)
	p := &producer{cl: e.producer}
	before := readPipelineStats(e.conn.Registry)
	const tick = 5 * time.Millisecond
	start := time.Now()
	for i := 0; i < n; {
		due := min(n, int(time.Since(start).Seconds()*rate)+1)
		for ; i < due; i++ {
			sent[i] = time.Now()
			p.send(ctx, b.records[i])
		}
		time.Sleep(tick) // pacing of the steady rate, not a wait for a condition
	}
	err = p.wait()
	var arrived map[string]time.Time
	if err == nil {
		arrived, err = e.results.wait(ctx, b.keys)
	}
	path := prof.stop()
	if err != nil {
		return Latency{}, err
	}
	after := readPipelineStats(e.conn.Registry)
	lat := make([]time.Duration, n)
	for i, k := range b.keys {
		lat[i] = arrived[k].Sub(sent[i])
	}
	l := Latency{RatePerSecond: round(rate, 1), Commands: n, P50MS: ms(percentile(lat, 50)),
		P99MS: ms(percentile(lat, 99)), MaxMS: ms(percentile(lat, 100)), Profile: path,
		Transactions: int(after.transactions - before.transactions)}
	if l.Transactions > 0 {
		l.MeanTxnMS = round(time.Since(start).Seconds()*1000/float64(l.Transactions), 1)
		l.MeanPhaseMS = map[string]float64{}
		for _, ph := range txnPhases {
			l.MeanPhaseMS[ph] = round((after.phaseSeconds[ph]-before.phaseSeconds[ph])*1000/float64(l.Transactions), 2)
		}
	}
	if calls := after.api - before.api; calls > 0 {
		l.MeanAPICallMS = round((after.apiSeconds-before.apiSeconds)*1000/calls, 2)
	}
	return l, nil
}

// measureSlowAPI gives the sandbox o.slowLatency and sends o.slowCommands
// to one partition; it reports their rate, the most API calls in flight and
// the process's peak RSS during the phase.
func (e *env) measureSlowAPI(ctx context.Context, o options) (SlowAPI, error) {
	e.sandbox.Reset() // forget the earlier phases' sessions: the RSS is this phase's
	if err := e.sandbox.SetFaults(paysim.Faults{Latency: o.slowLatency}); err != nil {
		return SlowAPI{}, err
	}
	defer func() { _ = e.sandbox.SetFaults(paysim.Faults{}) }()
	runtime.GC()
	debug.FreeOSMemory()
	rssErr := resetPeakRSS()
	b := newBatch(e.cfg.Topics.InitPayout, "slow", o.slowCommands, 1)
	prof, err := startProfile(o.profileDir, "slow-api")
	if err != nil {
		return SlowAPI{}, err
	}
	peak := e.sampleInFlight(ctx)
	start, last, err := e.runBatch(ctx, b)
	inFlight := peak()
	path := prof.stop()
	if err != nil {
		return SlowAPI{}, err
	}
	secs := last.Sub(start).Seconds()
	s := SlowAPI{SandboxLatencyMS: ms(o.slowLatency), Partitions: 1, MaxInFlight: o.maxInFlight, Commands: o.slowCommands,
		Seconds: round(secs, 3), PerSecond: round(float64(o.slowCommands)/secs, 1), PeakInFlight: inFlight, Profile: path}
	if rss, err := peakRSS(); err == nil && rssErr == nil {
		s.PeakRSSMiB = mib(rss)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s.HeapInUseMiB = mib(int64(ms.HeapInuse))
	return s, nil
}

// sampleInFlight samples the pipeline's in-flight gauge every 20ms until
// the returned function is called, which returns the highest value seen.
func (e *env) sampleInFlight(ctx context.Context) func() float64 {
	ctx, cancel := context.WithCancel(ctx)
	var peak float64
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			peak = max(peak, gaugeValue(e.conn.Registry, "paysession_pipeline_in_flight"))
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() float64 { cancel(); <-done; return peak }
}
