package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/connector/kit"
	"github.com/paysession/paysession/internal/codec"
)

// tailLine is one record as `connector tail` prints it.
type tailLine struct {
	Topic     string            `json:"topic"`
	Partition int32             `json:"partition"`
	Offset    int64             `json:"offset"`
	Timestamp time.Time         `json:"timestamp"`
	Key       string            `json:"key"`
	Headers   map[string]string `json:"headers,omitempty"`
	Schema    string            `json:"schema,omitempty"`
	Value     any               `json:"value,omitempty"`
	// OriginalValue is a dead letter's original value as text, with card
	// data scrubbed (it is masked on the topic unless it held none).
	OriginalValue *string `json:"original_value,omitempty"`
	Error         string  `json:"error,omitempty"`
}

// runTail is `connector tail <topic>`: the committed records of an outcome
// or dead-letter topic (read_committed), decoded and printed as JSON lines.
// Command topics are refused: they hold full card data.
func runTail(ctx context.Context, args []string, env envconfig.Lookuper, stdout, stderr io.Writer) int {
	fs := newFlagSet("tail", stderr)
	n := fs.Int("n", 0, "stop after this many records (0: run until interrupted or -timeout)")
	fromEnd := fs.Bool("from-end", false, "print only records written after the start (default: from the beginning)")
	timeout := fs.Duration("timeout", 0, "stop after this long (0: no limit)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: connector tail [flags] <topic>\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	topic := fs.Arg(0)
	cfg, ok := loadClientConfig(ctx, env, stderr)
	if !ok {
		return exitUsage
	}
	topics := kitTopics(cfg.Topics)
	if refused := tailRefused(topics, topic); refused != "" {
		fmt.Fprintf(stderr, "connector tail: %s\n", refused)
		return exitUsage
	}
	reg, err := connector.RegistryClient(cfg.Registry)
	if err != nil {
		fmt.Fprintf(stderr, "connector tail: %v\n", err)
		return exitUsage
	}
	dec, err := kit.NewDecoder(kit.DecoderConfig{Registry: reg})
	if err != nil {
		fmt.Fprintf(stderr, "connector tail: %v\n", err)
		return exitFailed
	}
	start := kgo.NewOffset().AtStart()
	if *fromEnd {
		start = kgo.NewOffset().AtEnd()
	}
	cl, code := kafkaClient("tail", cfg.Kafka, stderr, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(start),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
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
	for *n == 0 || printed < *n {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			break
		}
		for _, fe := range fetches.Errors() {
			fmt.Fprintf(stderr, "connector tail: %s/%d: %v\n", fe.Topic, fe.Partition, fe.Err)
		}
		for _, r := range fetches.Records() {
			if *n > 0 && printed == *n {
				break
			}
			if err := out.Encode(tailRecord(ctx, dec, r, schema, known)); err != nil {
				fmt.Fprintf(stderr, "connector tail: %v\n", err)
				return exitFailed
			}
			printed++
		}
	}
	if *n > 0 && printed < *n {
		fmt.Fprintf(stderr, "connector tail: %d of %d records before the stop\n", printed, *n)
		return exitFailed
	}
	return exitOK
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

// tailRecord decodes one record for printing. A value that does not decode
// is printed with its error, never as raw bytes.
func tailRecord(ctx context.Context, dec *kit.Decoder, r *kgo.Record, schema kit.SchemaName, known bool) tailLine {
	l := tailLine{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Timestamp: r.Timestamp.UTC(), Key: codec.Scrub(string(r.Key))}
	for _, h := range r.Headers {
		if l.Headers == nil {
			l.Headers = map[string]string{}
		}
		l.Headers[h.Key] = codec.Scrub(string(h.Value))
	}
	var v kit.Record
	var err error
	if known {
		v, err = dec.DecodeAs(ctx, schema, r.Value)
	} else {
		v, err = dec.DecodeAny(ctx, r.Value)
	}
	if err != nil {
		l.Error = err.Error()
		return l
	}
	l.Schema, l.Value = string(v.SchemaName()), v
	if d, ok := v.(*kit.DeadLetter); ok {
		s := codec.Scrub(string(d.OriginalValue))
		l.OriginalValue = &s
	}
	return l
}
