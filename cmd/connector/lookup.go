package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/paysession/paysession/connector/lookup"
	"github.com/paysession/paysession/internal/codec"
)

// runLookup is `connector lookup KEY`: what the topics hold of the command
// whose outcome key is KEY — results, dead letters, retry records and the
// latest state of its session — as JSON lines in time order, masked as on
// the topics. It exits exitFailed when the topics hold nothing of KEY.
func runLookup(ctx context.Context, args []string, env envconfig.Lookuper, stdout, stderr io.Writer) int {
	fs := newFlagSet("lookup", stderr)
	timeout := fs.Duration("timeout", time.Minute, "fail when the topics are not read to their end within this long")
	connect := fs.Duration("connect-timeout", 10*time.Second, "fail when the brokers do not answer within this long")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: connector lookup [flags] <key>\n\n"+
			"<key> is the command's idempotency key, or invalid-<topic>-<partition>-<offset> for a command whose key was invalid.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	cfg, ok := loadClientConfig(ctx, env, stderr)
	if !ok {
		return exitUsage
	}
	dec, cl, code := outcomeReader("lookup", cfg, stderr)
	if cl == nil {
		return code
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if err := brokersAnswer(ctx, cl, *connect); err != nil {
		fmt.Fprintf(stderr, "connector lookup: %v\n", err)
		return exitFailed
	}
	lines, err := lookup.Find(ctx, lookup.Config{Topics: kitTopics(cfg.Topics), Decoder: dec, Client: cl}, fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "connector lookup: %v\n", err)
		return exitFailed
	}
	if len(lines) == 0 {
		fmt.Fprintf(stderr, "connector lookup: nothing of %s in the topics\n", codec.Scrub(fs.Arg(0)))
		return exitFailed
	}
	out := json.NewEncoder(stdout)
	for _, l := range lines {
		if err := out.Encode(l); err != nil {
			fmt.Fprintf(stderr, "connector lookup: %v\n", err)
			return exitFailed
		}
	}
	return exitOK
}
