package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"time"
)

// measure starts the environment and runs every phase in order; on an
// error it returns what it measured so far.
func measure(ctx context.Context, o options, log *slog.Logger) (*Report, error) {
	rep := &Report{StartedAt: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(), CPUs: runtime.NumCPU(),
		Broker: "local"}
	if os.Getenv("KAFKA_BROKERS") != "" {
		rep.Broker = "external"
	}
	e, err := startEnv(ctx, o, log)
	if err != nil {
		return nil, err
	}
	defer e.close()
	log.Info("warming up: the connector joins its group and opens its connections")
	if _, _, err := e.runBatch(ctx, newBatch(e.cfg.Topics.InitPayout, "warmup", 20*o.partitions, o.partitions)); err != nil {
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	steps := []struct {
		name string
		run  func() error
	}{
		{"signing rate", func() (err error) { rep.Signing, err = measureSigning(ctx, 2, o.signFor); return }},
		{"end-to-end throughput", func() (err error) {
			rep.Throughput, err = e.measureThroughput(ctx, o, rep.Signing)
			return
		}},
		{"added latency at half max", func() (err error) {
			rep.Latency, err = e.measureLatency(ctx, o, rep.Throughput.PerSecond/2)
			return
		}},
		{"slow API on one partition", func() (err error) { rep.SlowAPI, err = e.measureSlowAPI(ctx, o); return }},
		{"webhooks", func() (err error) { rep.Webhooks, err = e.measureWebhooks(ctx, o); return }},
	}
	for _, s := range steps {
		log.Info("phase: " + s.name)
		if err := s.run(); err != nil {
			rep.Targets = rep.targets()
			return rep, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	rep.Targets = rep.targets()
	rep.Notes = notes(o)
	return rep, nil
}

func notes(o options) []string {
	return []string{
		"connector, sandbox and the bench's Kafka clients share one process: process CPU and RSS include the sandbox " +
			"(signature verification, sessions) and the clients; connector_cpu_share is the part=connector pprof label's share",
		fmt.Sprintf("PAYSESSION_PIPELINE_MAX_IN_FLIGHT=%d in every phase; the sandbox sends no webhooks in the command phases", o.maxInFlight),
		"added latency = produce call -> result readable with read_committed, minus the sandbox latency (0 in that phase)",
	}
}

// printMissedProfiles prints the top of each missed target's CPU profile.
func printMissedProfiles(w io.Writer, rep *Report) {
	profiles := map[string]string{
		"end-to-end throughput":         rep.Throughput.Profile,
		"slow API, 1 partition":         rep.SlowAPI.Profile,
		"added latency p99 at half max": rep.Latency.Profile,
		"webhooks accepted":             rep.Webhooks.Profile,
		"webhook answer p99":            rep.Webhooks.Profile,
		"peak RSS, ~1000 in flight":     rep.SlowAPI.Profile,
	}
	printed := map[string]bool{}
	for _, t := range rep.Targets {
		path := profiles[t.Name]
		if t.Met || path == "" || printed[path] {
			continue
		}
		printed[path] = true
		top, err := profileTop(path)
		if err != nil {
			fmt.Fprintf(w, "profile %s: %v\n", path, err)
			continue
		}
		fmt.Fprintf(w, "\n== missed: %s — CPU profile %s (top 10)\n%s", t.Name, path, top)
	}
}
