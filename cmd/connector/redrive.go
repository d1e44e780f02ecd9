package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/connector/redrive"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/kafka"
)

// runRedrive is `connector redrive`: re-publish the selected dead letters
// to their source topics, or with -dry-run print what it would redrive.
func runRedrive(ctx context.Context, args []string, env envconfig.Lookuper, stdout, stderr io.Writer) int {
	fs := newCmdLine("redrive", "", "Re-publishes the selected dead letters to their source topics (after a fix), or with -dry-run prints them.", 0, 0)
	filter := filterFlags(fs.FlagSet, "redrive")
	limit := fs.Int("limit", 0, "redrive at most this many letters (0: no limit)")
	maxRedrives := fs.Int("max-redrives", 3, "skip a letter whose command was already redriven this many times")
	dryRun := fs.Bool("dry-run", false, "print what would be redriven; write nothing")
	every := fs.Int("progress-every", 1000, "print progress to stderr every this many dead-letter records read")
	interval := fs.Duration("progress-interval", 10*time.Second, "print progress to stderr at least this often")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up after this long")
	if _, code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	dlq, code := openDeadLetters(ctx, env, stderr)
	if dlq == nil {
		return code
	}
	rctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	n, err := redrive.Run(rctx, redrive.Config{Kafka: dlq.opts, DeadLetter: dlq.topic, Logger: dlq.log,
		Decode: dlq.decoder(rctx), Filter: filter(), Limit: *limit, MaxRedrives: *maxRedrives, DryRun: *dryRun,
		Report: func(l redrive.Letter) { printLetter(stdout, l) }, Progress: progressPrinter(stderr, *every, *interval)})
	if *dryRun {
		fmt.Fprintf(stdout, "would redrive: %d\n", n)
	} else {
		fmt.Fprintf(stdout, "redriven: %d\n", n)
	}
	if err != nil {
		fmt.Fprintf(stderr, "connector: redrive: %v\n", dlq.cause.Explain(err))
		return exitFailed
	}
	return exitOK
}

// filterFlags defines the flags that select dead letters; the returned
// function, called after parsing, builds the filter.
func filterFlags(fs *flag.FlagSet, verb string) func() redrive.Filter {
	var f redrive.Filter
	fs.StringVar(&f.SourceTopic, "source-topic", "", verb+" only letters whose original topic is this (default: all)")
	fs.StringVar(&f.Key, "key", "", verb+" only the letters of this idempotency key")
	codes := fs.String("error-code", "", verb+" only letters with one of these error codes (comma-separated)")
	since := timeFlag(fs, &f.Since, "since", verb+" only letters written at or after this time (RFC 3339, or a duration ago: 2h)")
	until := timeFlag(fs, &f.Until, "until", verb+" only letters written before this time (RFC 3339, or a duration ago)")
	return func() redrive.Filter {
		if *codes != "" {
			f.ErrorCodes = strings.Split(*codes, ",")
		}
		now := time.Now()
		since.resolve(now)
		until.resolve(now)
		return f
	}
}

// deadLetters is what the dead-letter subcommands need of the
// configuration: the client options, the topic, a logger and the decoder.
type deadLetters struct {
	opts  []kgo.Opt
	cause *kafka.BrokerErrors // what a run that ran out of time met
	topic string
	log   *slog.Logger
	dec   *codec.Decoder
}

// openDeadLetters loads the configuration for a dead-letter subcommand
// (its client sections: the API variables of `run` are not needed). On
// failure it says why on stderr and returns the exit code.
func openDeadLetters(ctx context.Context, env envconfig.Lookuper, stderr io.Writer) (*deadLetters, int) {
	cfg, ok := loadClientConfig(ctx, env, stderr)
	if !ok {
		return nil, exitUsage
	}
	opts, err := kafka.ClientOpts(cfg.Kafka)
	if err != nil {
		fmt.Fprintf(stderr, "connector: %v\n", err)
		return nil, exitUsage
	}
	log := connector.NewLogger(stderr, cfg.Log)
	warnRisks(log, cfg)
	_, dec, err := connector.NewCodecs(ctx, cfg, log)
	if err != nil {
		fmt.Fprintf(stderr, "connector: %v\n", err)
		return nil, exitFailed
	}
	cause := &kafka.BrokerErrors{}
	opts = append(opts, kgo.WithHooks(cause))
	return &deadLetters{opts: opts, cause: cause, topic: cfg.Topics.DeadLetter, log: log, dec: dec}, exitOK
}

// decoder decodes dead-letter values.
func (d *deadLetters) decoder(ctx context.Context) func([]byte) (*codec.DeadLetter, error) {
	return func(b []byte) (*codec.DeadLetter, error) {
		var dl codec.DeadLetter
		return &dl, d.dec.DecodeRecord(ctx, b, &dl)
	}
}

// printLetter prints one selected letter as a line: what became of it,
// where it is, its (scrubbed) key, source and error code.
func printLetter(w io.Writer, l redrive.Letter) {
	fmt.Fprintf(w, "%s\tdead-letter %d/%d\tkey %s\tsource %s\terror %s", l.Action, l.Partition, l.Offset, l.Key, l.Source, l.ErrorCode)
	if l.Reason != "" {
		fmt.Fprintf(w, "\t(%s)", l.Reason)
	}
	fmt.Fprintln(w)
}

// progressPrinter prints a run's progress to w when every records were
// read since the last line or interval has passed.
func progressPrinter(w io.Writer, every int, interval time.Duration) func(redrive.Progress) {
	lastRead, lastAt := 0, time.Now()
	return func(p redrive.Progress) {
		if p.Read-lastRead < every && time.Since(lastAt) < interval {
			return
		}
		lastRead, lastAt = p.Read, time.Now()
		fmt.Fprintf(w, "redrive: read %d, selected %d, redriven %d, skipped %d\n", p.Read, p.Selected, p.Redriven, p.Skipped)
	}
}

// timeValue is a flag of a time: RFC 3339, or a duration before the start.
type timeValue struct {
	t   *time.Time
	ago time.Duration
}

func timeFlag(fs *flag.FlagSet, t *time.Time, name, usage string) *timeValue {
	v := &timeValue{t: t}
	fs.Var(v, name, usage)
	return v
}

func (v *timeValue) String() string {
	if v == nil || v.t == nil || v.t.IsZero() {
		return ""
	}
	return v.t.Format(time.RFC3339)
}

func (v *timeValue) Set(s string) error {
	if d, err := time.ParseDuration(s); err == nil {
		v.ago = d
		return nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return fmt.Errorf("want an RFC 3339 time or a duration: %q", s)
	}
	*v.t = t
	return nil
}

// resolve turns a duration into the time that long before now.
func (v *timeValue) resolve(now time.Time) {
	if v.ago > 0 {
		*v.t = now.Add(-v.ago)
	}
}
