package main

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
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
	b := newBatch(e.cfg.Topics.Command["init_payout"], "throughput", o.commands, o.partitions)
	prof, err := startProfile(o.profileDir, "throughput")
	if err != nil {
		return Throughput{}, err
	}
	before := readPipelineStats(e.conn.Registry)
	cpu0 := cpuTime()
	sandbox0, sandboxErr := e.sandbox.cpuTime()
	start, last, err := e.runBatch(ctx, b)
	cpu := cpuTime() - cpu0
	sandbox1, sandboxErr1 := e.sandbox.cpuTime()
	after := readPipelineStats(e.conn.Registry)
	path := prof.stop()
	if err != nil {
		return Throughput{}, err
	}
	secs := last.Sub(start).Seconds()
	t := Throughput{Commands: o.commands, Partitions: o.partitions, MaxInFlight: o.maxInFlight, Seconds: round(secs, 3),
		PerSecond: round(float64(o.commands)/secs, 1), ProcessCPU: round(cpu.Seconds(), 3),
		ProcessCPUPerCmd: round(cpu.Seconds()*1000/float64(o.commands), 4), Profile: path}
	if sandboxErr == nil && sandboxErr1 == nil {
		t.SandboxCPUPerCmd = round((sandbox1-sandbox0).Seconds()*1000/float64(o.commands), 4)
	}
	t.Transactions, t.MeanPhaseMS = after.since(before)
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
	b := newBatch(e.cfg.Topics.Command["init_payout"], "latency", n, o.partitions)
	prof, err := startProfile(o.profileDir, "latency")
	if err != nil {
		return Latency{}, err
	}
	p := &producer{cl: e.producer, acked: make(map[string]time.Time, n)}
	before := readPipelineStats(e.conn.Registry)
	sched := schedLatencies()
	start := time.Now()
	sent := pace(ctx, p, b.records, rate)
	err = p.wait()
	var arrived map[string]time.Time
	if err == nil {
		arrived, err = e.results.wait(ctx, b.keys)
	}
	path := prof.stop()
	schedAfter := schedLatencies()
	if err != nil {
		return Latency{}, err
	}
	after := readPipelineStats(e.conn.Registry)
	seg := splitLatency(b.keys, sent, p.acked, e.results.producedAt(b.keys), arrived)
	if o.latencyCSV != "" {
		if err := seg.writeCSV(o.latencyCSV); err != nil {
			return Latency{}, err
		}
	}
	l := Latency{RatePerSecond: round(rate, 1), Commands: n, P50MS: ms(percentile(seg.total, 50)),
		P99MS: ms(percentile(seg.total, 99)), MaxMS: ms(percentile(seg.total, 100)), Profile: path,
		Segments: seg.quantiles(), Sched: schedLatencySince(sched, schedAfter)}
	l.Transactions, l.MeanPhaseMS = after.since(before)
	if pauses, errText, ok := e.readBrokerPauses(); ok {
		l.BrokerGC = &PhaseGC{Error: errText}
		if errText == "" {
			l.BrokerGC.GCPauses = pausesIn(pauses, []window{seg.window()})
		}
	}
	if l.Transactions > 0 {
		l.MeanTxnMS = round(time.Since(start).Seconds()*1000/float64(l.Transactions), 1)
	}
	if calls := after.api - before.api; calls > 0 {
		l.MeanAPICallMS = round((after.apiSeconds-before.apiSeconds)*1000/calls, 2)
	}
	return l, nil
}

// measureSlowAPI gives the sandbox o.slowLatency and sends o.slowCommands
// to one partition; it reports their rate, the most API calls in flight and
// this process's peak RSS during the phase (the connector and the bench's
// Kafka clients: the sandbox is another process), with what the Go runtime
// held when the RSS last grew and a heap profile of that moment.
func (e *env) measureSlowAPI(ctx context.Context, o options) (SlowAPI, error) {
	// Forget the earlier phases' sessions: the sandbox serves this phase fresh.
	if err := e.sandbox.reset(ctx); err != nil {
		return SlowAPI{}, err
	}
	if err := e.sandbox.setFaults(ctx, paysim.Faults{Latency: o.slowLatency}); err != nil {
		return SlowAPI{}, err
	}
	defer func() { _ = e.sandbox.setFaults(context.WithoutCancel(ctx), paysim.Faults{}) }()
	runtime.GC()
	debug.FreeOSMemory()
	rssErr := resetPeakRSS()
	b := newBatch(e.cfg.Topics.Command["init_payout"], "slow", o.slowCommands, 1)
	prof, err := startProfile(o.profileDir, "slow-api")
	if err != nil {
		return SlowAPI{}, err
	}
	stopSampling := e.samplePeak(ctx)
	start, last, err := e.runBatch(ctx, b)
	peak := stopSampling()
	path := prof.stop()
	if err != nil {
		return SlowAPI{}, err
	}
	heapPath, err := writeHeapProfile(slowHeapProfile(o), peak.heap)
	if err != nil {
		return SlowAPI{}, err
	}
	secs := last.Sub(start).Seconds()
	s := SlowAPI{SandboxLatencyMS: ms(o.slowLatency), Partitions: 1, MaxInFlight: o.maxInFlight, Commands: o.slowCommands,
		Seconds: round(secs, 3), PerSecond: round(float64(o.slowCommands)/secs, 1), PeakInFlight: peak.inFlight, Profile: path,
		HeapInUseAtPeakMiB: mib(int64(peak.mem.HeapInuse)), StackAtPeakMiB: mib(int64(peak.mem.StackInuse)),
		GoroutinesAtPeak: peak.goroutines, HeapProfile: heapPath}
	if rss, err := peakRSS(); err == nil && rssErr == nil {
		s.PeakRSSMiB = mib(rss)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s.HeapInUseMiB = mib(int64(ms.HeapInuse))
	return s, nil
}

// peakSample is what samplePeak saw.
type peakSample struct {
	inFlight   float64          // the highest in-flight gauge
	mem        runtime.MemStats // when the RSS last grew by 2 MiB
	goroutines int              // at that moment
	heap       []byte           // heap profile (inuse_space as of the last GC) of that moment
}

// samplePeak samples the pipeline's in-flight gauge and the process's RSS
// every 20ms until the returned function is called. Whenever the RSS grew
// by at least 2 MiB since the last capture it captures the Go runtime's
// memory statistics and a heap profile: at the end they are the phase's peak.
func (e *env) samplePeak(ctx context.Context) func() peakSample {
	ctx, cancel := context.WithCancel(ctx)
	var p peakSample
	var heap bytes.Buffer
	var rssAtCapture int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			p.inFlight = max(p.inFlight, gaugeValue(e.conn.Registry, "paysession_pipeline_in_flight"))
			if rss, err := currentRSS(); err == nil && rss >= rssAtCapture+2<<20 {
				heap.Reset()
				if pprof.Lookup("heap").WriteTo(&heap, 0) == nil {
					rssAtCapture = rss
					runtime.ReadMemStats(&p.mem)
					p.goroutines = runtime.NumGoroutine()
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() peakSample { cancel(); <-done; p.heap = heap.Bytes(); return p }
}
