package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/paysession/paysession/internal/signing"
)

// measure starts the environment and runs every phase in order; on an
// error it returns what it measured so far.
func measure(ctx context.Context, o options, log *slog.Logger) (*Report, error) {
	rep := &Report{StartedAt: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(), CPUs: runtime.NumCPU(),
		Broker: brokerLocal}
	if os.Getenv("KAFKA_BROKERS") != "" {
		rep.Broker = brokerExternal
	}
	e, err := startEnv(ctx, o, log)
	if err != nil {
		return nil, err
	}
	defer e.close()
	if err := e.steadyBroker(ctx, log); err != nil {
		return nil, err
	}
	log.Info("warming up: the connector joins its group and opens its connections")
	if _, _, err := e.runBatch(ctx, newBatch(e.cfg.Topics.Command["init_payout"], "warmup", 20*o.partitions, o.partitions)); err != nil {
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	type step struct {
		name string
		run  func() error
	}
	steps := []step{
		{"signing rate", func() (err error) { rep.Signing, err = measureSigning(ctx, 2, o.signFor); return }},
		{"end-to-end throughput", func() (err error) {
			rep.Throughput, err = e.measureThroughput(ctx, o, rep.Signing)
			return
		}},
		{"paced latency beside a naive loop", func() (err error) {
			rep.Paced, err = e.measurePaced(ctx, o, string(signing.DefaultEngine))
			return
		}},
	}
	if !o.engineOnly {
		steps = append(steps, []step{
			{"added latency at half max", func() (err error) {
				rate := rep.Throughput.PerSecond / 2
				if o.latencyRate > 0 {
					rate = o.latencyRate
				}
				rep.Latency, err = e.measureLatency(ctx, o, rate)
				return
			}},
			{"slow API on one partition", func() (err error) { rep.SlowAPI, err = e.measureSlowAPI(ctx, o); return }},
			{"webhooks", func() (err error) { rep.Webhooks, err = e.measureWebhooks(ctx, o); return }},
		}...)
	}
	for _, s := range steps {
		log.Info("phase: " + s.name)
		if err := s.run(); err != nil {
			rep.Targets = rep.targets()
			return rep, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	rep.Engines = []EngineRun{engineRun(rep)}
	if o.engines == "all" {
		rep.Engines = append(rep.Engines, e.measureOtherEngine(ctx, o, log))
	}
	rep.Targets = rep.targets()
	rep.Notes = notes(o, rep.Broker)
	return rep, nil
}

func notes(o options, broker string) []string {
	return []string{
		"the sandbox runs as its own process (cmd/paysim); the connector and the bench's Kafka clients (command producer, " +
			"results collector) share the bench's process: process CPU and peak RSS are theirs, not the sandbox's; " +
			"connector_cpu_share is the part=connector pprof label's share of that process, sandbox_cpu_ms_per_command " +
			"the paysim process's CPU",
		"peak RSS is the bench process's VmHWM during the slow-API phase (reset at its start, after a GC that returned " +
			"freed memory): the connector with its goroutines, buffers and Go heap growth, plus the producer and collector " +
			"of this phase's commands and results; heap profile of the peak: " + slowHeapProfile(o),
		fmt.Sprintf("PAYSESSION_PIPELINE_MAX_IN_FLIGHT=%d in every phase; the sandbox sends no webhooks in the command phases", o.maxInFlight),
		"added latency = produce call -> result readable with read_committed, minus the sandbox latency (0 in that phase)",
		fmt.Sprintf("paced phase: %d commands at %.0f/s (0 ms sandbox latency) through the connector and as many through a naive "+
			"at-least-once franz-go loop in this process (poll -> call all -> produce, acks=all -> commit; same signer, "+
			"same partitions), in %d alternating slices of each after a warm-up of each; readable latency = produce call -> "+
			"result readable", o.pacedCommands, o.pacedRate, o.pacedRounds),
		brokerNote(broker),
		"signing engines: this bench signs with " + string(signing.DefaultEngine) + " (connector and naive loop); the other " +
			"engine's row comes from a bench built for it (-tags libcrypto or not) run afterwards on the same broker",
	}
}

// brokerNote says which broker the figures were measured on.
func brokerNote(broker string) string {
	if broker == brokerExternal {
		return "broker: the one at KAFKA_BROKERS, run as it was started (a broker the bench starts has a fixed " +
			brokerHeap + " heap)"
	}
	return "broker: started by the bench with a fixed " + brokerHeap + " heap (-Xms = -Xmx, the heap of Kafka's start script) and " +
		"the harness's serial collector and C1 compiler"
}

// slowHeapProfile is where the slow-API phase writes its heap profile.
func slowHeapProfile(o options) string {
	return filepath.Join(o.profileDir, "bench-slow-api-heap.pprof")
}

// printMissedProfiles prints the top of each missed target's profile: the
// CPU profile of its phase, the heap profile for the RSS target.
func printMissedProfiles(w io.Writer, rep *Report) {
	type prof struct {
		path, kind string
		flags      []string
	}
	cpu := func(path string) prof { return prof{path: path, kind: "CPU"} }
	profiles := map[string]prof{
		"end-to-end throughput":         cpu(rep.Throughput.Profile),
		"slow API, 1 partition":         cpu(rep.SlowAPI.Profile),
		"added latency p99 at half max": cpu(rep.Latency.Profile),
		"webhooks accepted":             cpu(rep.Webhooks.Profile),
		"webhook answer p99":            cpu(rep.Webhooks.Profile),
		"paced p99 / naive loop p99":    cpu(rep.Paced.Profile),
		"peak RSS, ~1000 in flight":     {rep.SlowAPI.HeapProfile, "heap (inuse_space)", []string{"-sample_index=inuse_space"}},
	}
	printed := map[string]bool{}
	for _, t := range rep.Targets {
		p := profiles[t.Name]
		if t.Met || p.path == "" || printed[p.path] {
			continue
		}
		printed[p.path] = true
		top, err := profileTop(p.path, p.flags...)
		if err != nil {
			fmt.Fprintf(w, "profile %s: %v\n", p.path, err)
			continue
		}
		fmt.Fprintf(w, "\n== missed: %s — %s profile %s (top 10)\n%s", t.Name, p.kind, p.path, top)
	}
}
