// Command scale measures what a session writer's takeover costs as the
// sessions partition grows (issue 36): for each size it fills partition 0
// of a fresh sessions topic with that many historical sessions (last
// written 400 to 30 days ago) and some recent ones (within the last day),
// in the writer's own encoding, then starts the connector (connector run,
// its own process) on it, once per build given, and reports the writer's
// takeover time, the time to ready, the process's RSS and peak RSS, its
// live Go heap after the takeover and how many sessions the writer holds.
// It prints one table and writes the figures as JSON.
//
// It sits beside the data path like integration/bench: a broker from
// -brokers (KAFKA_BROKERS) or started here with the harness, the
// connector's topics created for one partition each, the connector built
// from ./cmd/connector unless -connector names a build, and
// -connector-before a second build (the code before a change) measured on
// the same partition first.
//
//	go run ./integration/bench/scale -out .cache/bench-scale.json -sizes 100000,1000000
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command-line flags.
type options struct {
	out          string
	brokers      string
	brokerPID    int
	sizes        []int
	recent       int
	connector    string
	before       string
	horizon      string
	reconciler   bool
	keep         bool
	settleMax    time.Duration
	readyTimeout time.Duration
	logLevel     string
	logs         io.Writer // the connectors' output
}

// sizesFlag is a comma-separated list of session counts.
type sizesFlag []int

func (s *sizesFlag) String() string {
	parts := make([]string, len(*s))
	for i, n := range *s {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

func (s *sizesFlag) Set(v string) error {
	*s = nil
	for part := range strings.SplitSeq(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(strings.ReplaceAll(part, "_", "")))
		if err != nil || n < 0 {
			return fmt.Errorf("%q: want a count of sessions", part)
		}
		*s = append(*s, n)
	}
	return nil
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	o := options{sizes: []int{100_000, 1_000_000, 10_000_000}, logs: stderr}
	fs := flag.NewFlagSet("bench-scale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.out, "out", ".cache/bench-scale.json", "write the figures as JSON here")
	fs.StringVar(&o.brokers, "brokers", os.Getenv(harness.BrokersEnv), "comma-separated brokers to use (default $KAFKA_BROKERS); empty: start a local broker")
	fs.IntVar(&o.brokerPID, "broker-pid", 0, "process id of the broker at -brokers, to wait until its log cleaner is done (see -settle-max); a broker started here is known")
	fs.Var((*sizesFlag)(&o.sizes), "sizes", "historical sessions of each measured partition, comma-separated")
	fs.IntVar(&o.recent, "recent", 100_000, "recent sessions (within the horizon) of each partition")
	fs.StringVar(&o.connector, "connector", "", "connector binary to measure (default: ./cmd/connector built into a temp dir)")
	fs.StringVar(&o.before, "connector-before", "", "a second connector binary (the code before a change), measured first on the same partitions")
	fs.StringVar(&o.horizon, "horizon", "", "PAYSESSION_SESSIONS_HORIZON for -connector only (default: unset, the connector's default)")
	fs.BoolVar(&o.reconciler, "reconciler", true, "run the reconciler too, as deployed (it reads the sessions partition as well and /readyz waits for it); false: the session writer alone")
	fs.BoolVar(&o.keep, "keep", false, "keep each size's topics instead of deleting them")
	fs.DurationVar(&o.settleMax, "settle-max", 10*time.Minute, "after a fill, wait at most this long for the broker's CPU to stay quiet for 20s (its log cleaner rewrites the new partition once); needs the broker's process id; 0: no wait")
	fs.DurationVar(&o.readyTimeout, "ready-timeout", 15*time.Minute, "give up on a connector not ready after this long")
	fs.StringVar(&o.logLevel, "log-level", "warn", "connector log level (its log goes to stderr)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	case len(o.sizes) == 0:
		return o, errors.New("-sizes: want at least one size")
	case o.recent < 0:
		return o, errors.New("-recent must not be negative")
	}
	for _, n := range o.sizes {
		if n+o.recent == 0 {
			return o, errors.New("-sizes and -recent: a partition needs at least one session")
		}
	}
	return o, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "bench-scale:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	rep, err := measure(ctx, o, log)
	if rep != nil && len(rep.Sizes) > 0 {
		rep.print(stdout)
		if werr := rep.write(o.out); werr != nil {
			fmt.Fprintln(stderr, "bench-scale:", werr)
			return 1
		}
		fmt.Fprintf(stdout, "\nJSON written to %s\n", o.out)
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench-scale:", err)
		return 1
	}
	return 0
}

// measure runs every size of o and returns what it measured, also when a
// later size fails.
func measure(ctx context.Context, o options, log *slog.Logger) (*report, error) {
	dir, err := os.MkdirTemp("", "paysession-bench-scale-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	r := &rig{}
	if r.bins, err = binaries(ctx, o, dir); err != nil {
		return nil, err
	}
	if r.key, err = writeKey(dir); err != nil {
		return nil, err
	}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "bench-scale: no API here", http.StatusServiceUnavailable)
	}))
	defer api.Close()
	r.api = api.URL
	if r.cluster, err = openCluster(ctx, o, log); err != nil {
		return nil, err
	}
	defer r.cluster.close()
	rep := newReport(o, r)
	for _, n := range o.sizes {
		res, err := r.measureSize(ctx, o, n, log)
		rep.Sizes = append(rep.Sizes, res)
		if err != nil {
			return rep, fmt.Errorf("%d historical sessions: %w", n, err)
		}
	}
	return rep, nil
}

// binaries returns the builds to measure, before first.
func binaries(ctx context.Context, o options, dir string) ([]binary, error) {
	path := o.connector
	if path == "" {
		var err error
		if path, err = buildConnector(ctx, dir); err != nil {
			return nil, err
		}
	}
	this := binary{Label: "connector", Path: path, Env: map[string]string{}}
	if o.horizon != "" {
		this.Env["PAYSESSION_SESSIONS_HORIZON"] = o.horizon
	}
	if o.before == "" {
		return []binary{this}, nil
	}
	this.Label = "after"
	return []binary{{Label: "before", Path: o.before}, this}, nil
}

// measureSize fills a fresh sessions partition with n historical and
// o.recent recent sessions and takes it over with every build.
func (r *rig) measureSize(ctx context.Context, o options, n int, log *slog.Logger) (sized, error) {
	res := sized{Historical: n, Recent: o.recent}
	topics, err := r.cluster.createTopics(ctx, fmt.Sprintf("bench-scale-%s-%d-", randomID(), n))
	if err != nil {
		return res, err
	}
	if o.keep {
		log.Info("keeping the topics", "sessions", topics["PAYSESSION_TOPIC_SESSIONS"])
	} else {
		defer r.cluster.deleteTopics(topics)
	}
	cl, err := kgo.NewClient(fillClientOpts(r.cluster.brokers)...)
	if err != nil {
		return res, err
	}
	f := fill{Historical: n, Recent: o.recent, Now: time.Now()}
	log.Info("filling", "historical", n, "recent", o.recent, "topic", topics["PAYSESSION_TOPIC_SESSIONS"])
	res.Fill, err = f.produce(ctx, cl, topics["PAYSESSION_TOPIC_SESSIONS"])
	cl.Close()
	if err != nil {
		return res, err
	}
	log.Info("filled", "records", res.Fill.Records, "seconds", round(res.Fill.Seconds, 1),
		"records_per_second", round(res.Fill.Rate, 0), "mb_per_second", round(float64(res.Fill.Bytes)/res.Fill.Seconds/1e6, 1))
	settled, err := r.cluster.settle(ctx, o.settleMax, log)
	res.SettleSeconds = settled.Seconds()
	if err != nil {
		return res, err
	}
	for _, bin := range r.bins {
		log.Info("taking over", "binary", bin.Label, "historical", n, "recent", o.recent)
		s, err := r.takeover(ctx, o, bin, topics)
		if err != nil {
			return res, err
		}
		res.Samples = append(res.Samples, s)
		log.Info("taken over", "binary", bin.Label, "takeover_seconds", round(s.TakeoverSeconds, 2),
			"ready_seconds", round(s.ReadySeconds, 2), "rss_mib", round(mib(s.RSSBytes), 1), "sessions", s.Sessions)
	}
	return res, nil
}
