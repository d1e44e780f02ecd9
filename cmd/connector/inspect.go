package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/paysession/paysession/connector/redrive"
)

// runInspect is `connector inspect`: the dead letters present now, grouped
// by error code and field, with counts and masked samples. It writes
// nothing.
func runInspect(ctx context.Context, args []string, env envconfig.Lookuper, stdout, stderr io.Writer) int {
	fs := newCmdLine("inspect", "", "Prints the dead letters grouped by error code and field, with counts and masked samples; writes nothing.", 0, 0)
	filter := filterFlags(fs.FlagSet, "count")
	samples := fs.Int("samples", 3, "letters shown per group")
	asJSON := fs.Bool("json", false, "print one JSON document")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up after this long")
	if _, code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	dlq, code := openDeadLetters(ctx, env, stderr)
	if dlq == nil {
		return code
	}
	ictx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	in, err := redrive.Inspect(ictx, redrive.InspectConfig{Kafka: dlq.opts, DeadLetter: dlq.topic,
		Decode: dlq.decoder(ictx), Filter: filter(), Samples: *samples})
	if err != nil {
		fmt.Fprintf(stderr, "connector: inspect: %v\n", dlq.cause.Explain(err))
		return exitFailed
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(in); err != nil {
			fmt.Fprintf(stderr, "connector: inspect: %v\n", err)
			return exitFailed
		}
		return exitOK
	}
	printInspection(stdout, in)
	return exitOK
}

// printInspection prints an inspection as text: a line per group, its
// samples indented below it.
func printInspection(w io.Writer, in *redrive.Inspection) {
	fmt.Fprintf(w, "dead letters: %d in %d groups", in.Letters, len(in.Groups))
	if in.Undecodable > 0 {
		fmt.Fprintf(w, " (%d undecodable records)", in.Undecodable)
	}
	fmt.Fprintln(w)
	for _, g := range in.Groups {
		field := g.Field
		if field == "" {
			field = "-"
		}
		fmt.Fprintf(w, "%6d  %s  field %s  (redriven %d)\n", g.Count, g.ErrorCode, field, g.Redriven)
		for _, s := range g.Samples {
			fmt.Fprintf(w, "        %d/%d %s key %s source %s: %s\n", s.Partition, s.Offset, s.Time.Format(time.RFC3339), s.Key, s.Source, s.Error)
			if s.Value != "" {
				fmt.Fprintf(w, "          %s\n", s.Value)
			}
		}
	}
}
