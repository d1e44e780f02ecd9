package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/connector/kit"
	"github.com/paysession/paysession/connector/lookup"
	"github.com/paysession/paysession/internal/config"
)

// runTail is `connector tail <topic>`: the committed records of an outcome
// or dead-letter topic (read_committed), decoded and printed as JSON lines,
// from a start position (-o, -t), to the topic's end (-e) or until stopped,
// optionally only those of one key (-k). Command topics are refused: they
// hold full card data. A missing topic or brokers that do not answer within
// -connect-timeout are an error, not a wait.
func runTail(ctx context.Context, args []string, env envconfig.Lookuper, stdout, stderr io.Writer) int {
	fs := newCmdLine("tail", "<topic>", "Prints the committed records of an outcome or dead-letter topic as decoded JSON lines.", 1, 1)
	n := fs.Int("n", 0, "stop after this many records (0: run until interrupted, -timeout or, with -e, the end)")
	fromEnd := fs.Bool("from-end", false, "print only records written after the start (same as -o end)")
	atEnd := fs.Bool("e", false, "exit at the end of the topic: the end offsets it has when tail starts")
	offset := fs.String("o", "beginning", "start position in every partition: beginning, end, an offset, or -N (N before the end)")
	since := fs.String("t", "", "start at the first record at or after this time (RFC 3339 or Unix milliseconds)")
	key := fs.String("k", "", "print only records of this key")
	timeout := fs.Duration("timeout", 0, "stop after this long (0: no limit)")
	connect := fs.Duration("connect-timeout", 10*time.Second, "fail when the brokers do not answer within this long")
	pos, code, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	start, err := tailStart(*offset, *since, *fromEnd)
	if err != nil {
		fmt.Fprintf(stderr, "connector tail: %v\n", err)
		return exitUsage
	}
	topic := pos[0]
	cfg, ok := loadClientConfig(ctx, env, stderr)
	if !ok {
		return exitUsage
	}
	topics := kitTopics(cfg.Topics)
	if refused := tailRefused(topics, topic); refused != "" {
		fmt.Fprintf(stderr, "connector tail: %s\n", refused)
		return exitUsage
	}
	dec, cl, code := outcomeReader("tail", cfg, stderr)
	if cl == nil {
		return code
	}
	defer cl.Close()
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	schema, known := topics.Schema(topic)
	out := json.NewEncoder(stdout)
	printed := 0
	var werr error
	if err := cl.brokersAnswer(ctx, *connect); err != nil {
		fmt.Fprintf(stderr, "connector tail: %v\n", err)
		return exitFailed
	}
	err = lookup.Read(ctx, cl.Client, lookup.Range{Topics: []string{topic}, From: start, Follow: !*atEnd}, func(r *kgo.Record) bool {
		if *key != "" && string(r.Key) != *key {
			return true
		}
		if werr = out.Encode(lookup.Decode(ctx, dec, r, schema, known)); werr != nil {
			return false
		}
		printed++
		return *n == 0 || printed < *n
	})
	switch {
	case werr != nil:
		fmt.Fprintf(stderr, "connector tail: %v\n", werr)
		return exitFailed
	case err != nil && !(stopped(ctx, err) && !*atEnd):
		fmt.Fprintf(stderr, "connector tail: %v\n", cl.explain(err))
		return exitFailed
	case *n > 0 && printed < *n:
		fmt.Fprintf(stderr, "connector tail: %d of %d records before the stop\n", printed, *n)
		return exitFailed
	}
	return exitOK
}

// stopped reports whether err is the end of ctx (-timeout or an
// interrupt), which ends a tail that follows its topic without error.
func stopped(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled))
}

// tailStart is the start position of tail's flags.
func tailStart(offset, since string, fromEnd bool) (lookup.Start, error) {
	if since != "" {
		if ms, err := strconv.ParseInt(since, 10, 64); err == nil {
			return lookup.Start{Time: time.UnixMilli(ms)}, nil
		}
		t, err := time.Parse(time.RFC3339Nano, since)
		if err != nil {
			return lookup.Start{}, fmt.Errorf("-t %q: want RFC 3339 or Unix milliseconds", since)
		}
		return lookup.Start{Time: t}, nil
	}
	switch offset {
	case "beginning", "":
		return lookup.Start{End: fromEnd}, nil
	case "end":
		return lookup.Start{End: true}, nil
	}
	o, err := strconv.ParseInt(offset, 10, 64)
	if err != nil {
		return lookup.Start{}, fmt.Errorf("-o %q: want beginning, end, an offset or -N", offset)
	}
	return lookup.Start{Offset: o, HasOffset: true}, nil
}

// outcomeReader returns the decoder of the connector's outcome values (with
// the registry when one is configured) and a client of the brokers that
// reads committed records as lookup.Read wants, for the subcommand cmd; on
// failure it says why on stderr and returns a nil client and the exit code.
func outcomeReader(cmd string, cfg *config.Config, stderr io.Writer) (*kit.Decoder, *kafkaConn, int) {
	reg, err := connector.RegistryClient(cfg.Registry)
	if err != nil {
		fmt.Fprintf(stderr, "connector %s: %v\n", cmd, err)
		return nil, nil, exitUsage
	}
	dec, err := kit.NewDecoder(kit.DecoderConfig{Registry: reg})
	if err != nil {
		fmt.Fprintf(stderr, "connector %s: %v\n", cmd, err)
		return nil, nil, exitFailed
	}
	cl, code := kafkaClient(cmd, cfg.Kafka, stderr, kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	return dec, cl, code
}

// tailRefused says why topic may not be tailed, or "" when it may.
func tailRefused(t kit.Topics, topic string) string {
	for _, ct := range t.Commands {
		if ct == topic {
			return topic + " is a command topic: its values hold full card data, and tail prints only outcome and dead-letter topics"
		}
	}
	if topic == t.Retry {
		return topic + " is the retry topic: its values are commands with full card data"
	}
	if topic == t.Attempts {
		return topic + " holds attempt marks, not outcomes"
	}
	return ""
}
