// Command bench measures the connector end to end on the real broker: the
// machine's RSA-2048 signing rate (the ceiling: every API call is signed),
// commands/s and CPU per command, added latency at half of the maximum rate,
// readable latency at a paced rate beside a naive at-least-once loop (the
// floor of any design), throughput against a slow API on one partition with
// peak RSS, and webhooks/s at the webhook endpoint. The phases that depend on
// the signing engine run again with a bench built for the other engine
// (-tags libcrypto or not). It prints a table and writes the figures as JSON.
//
// It sits beside the data path like integration/harness: it starts a Kafka
// broker (or uses KAFKA_BROKERS), the sandbox as its own process (cmd/paysim,
// built into a temp dir, on loopback) and the whole connector in-process
// (connector.New, configured through config.Load like cmd/connector), and
// drives it with plain franz-go clients. The process's CPU and RSS are thus
// the connector's and those clients', never the sandbox's.
//
//	go run ./integration/bench -out .cache/bench.json
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command-line flags.
type options struct {
	out            string
	profileDir     string
	signFor        time.Duration
	commands       int
	partitions     int
	latencyFor     time.Duration
	latencyRate    float64
	latencyCSV     string
	slowCommands   int
	slowLatency    time.Duration
	maxInFlight    int
	webhooks       int
	webhookWorkers int
	timeout        time.Duration
	logLevel       string
	pacedCommands  int
	pacedRate      float64
	pacedWarmUp    int
	pacedRounds    int
	pacedCSV       string
	brokerGCLog    string
	// engines is "all" (also measure the other signing engine, with a
	// bench built for it) or "this" (only this build's engine).
	engines string
	// engineOnly runs only the phases measured per signing engine.
	engineOnly bool
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.out, "out", ".cache/bench.json", "write the figures as JSON here")
	fs.StringVar(&o.profileDir, "profile-dir", ".cache", "CPU profiles of the phases go here (bench-<phase>.pprof)")
	fs.DurationVar(&o.signFor, "sign-for", 3*time.Second, "how long to measure the signing rate")
	fs.IntVar(&o.commands, "commands", 5000, "init_payout commands of the throughput phase")
	fs.IntVar(&o.partitions, "partitions", 6, "partitions of the command topic")
	fs.DurationVar(&o.latencyFor, "latency-for", 10*time.Second, "how long to produce at half the maximum rate")
	fs.Float64Var(&o.latencyRate, "latency-rate", 0, "if positive, the latency phase's rate in commands/s instead of half the measured maximum (to compare runs at one rate)")
	fs.StringVar(&o.latencyCSV, "latency-csv", "", "if set, write each latency-phase command's segments to this file")
	fs.IntVar(&o.slowCommands, "slow-commands", 5000, "commands of the slow-API phase (one partition)")
	fs.DurationVar(&o.slowLatency, "slow-latency", 200*time.Millisecond, "sandbox latency of the slow-API phase")
	fs.IntVar(&o.maxInFlight, "max-in-flight", 1024, "PAYSESSION_PIPELINE_MAX_IN_FLIGHT of the connector")
	fs.IntVar(&o.webhooks, "webhooks", 10000, "webhooks posted in the webhook phase")
	fs.IntVar(&o.webhookWorkers, "webhook-workers", 64, "goroutines posting webhooks")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up after this long")
	fs.StringVar(&o.logLevel, "log-level", "warn", "connector log level (to stderr)")
	fs.IntVar(&o.pacedCommands, "paced-commands", 1000, "commands of the paced phase, through the connector and through the naive loop each")
	fs.Float64Var(&o.pacedRate, "paced-rate", 100, "commands/s of the paced phase")
	fs.IntVar(&o.pacedWarmUp, "paced-warmup", 300, "commands sent at the paced rate, unmeasured, before each side's paced run")
	fs.IntVar(&o.pacedRounds, "paced-rounds", 5, "alternating slices the paced commands of each side run in (connector, naive loop, connector, ...)")
	fs.StringVar(&o.pacedCSV, "paced-csv", "", "if set, write each paced command's latency segments to <this>-connector.csv and <this>-naive.csv")
	fs.StringVar(&o.brokerGCLog, "broker-gc-log", "", "the GC log of the broker at KAFKA_BROKERS (-Xlog:gc:file=PATH:time): the paced phase counts its pauses per side; a broker the bench starts logs its own")
	fs.StringVar(&o.engines, "engines", "all", "signing engines measured: all (this build's, then the other one with a bench built for it: -tags libcrypto or not) or this")
	fs.BoolVar(&o.engineOnly, "engine-phases-only", false, "run only the phases measured per signing engine (signing rate, throughput, paced); the bench's child runs use it")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	return o, o.validate()
}

func (o options) validate() error {
	switch {
	case o.commands < 1, o.slowCommands < 1, o.webhooks < 1:
		return fmt.Errorf("-commands, -slow-commands and -webhooks must be at least 1")
	case o.partitions < 1, o.webhookWorkers < 1, o.maxInFlight < 1:
		return fmt.Errorf("-partitions, -webhook-workers and -max-in-flight must be at least 1")
	case o.latencyRate < 0:
		return fmt.Errorf("-latency-rate must not be negative")
	case o.pacedCommands < 1, !(o.pacedRate > 0), o.pacedWarmUp < 1, o.pacedRounds < 1:
		return fmt.Errorf("-paced-commands, -paced-rate, -paced-warmup and -paced-rounds must be positive")
	case o.engines != "all" && o.engines != "this":
		return fmt.Errorf("-engines %q: want all or this", o.engines)
	}
	return nil
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	rep, err := measure(ctx, o, log)
	if rep != nil {
		rep.print(stdout)
		printMissedProfiles(stdout, rep)
		if werr := rep.write(o.out); werr != nil {
			fmt.Fprintln(stderr, "bench:", werr)
			return 1
		}
		fmt.Fprintf(stdout, "\nJSON written to %s\n", o.out)
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	return 0
}
