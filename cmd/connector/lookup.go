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
	fs := newCmdLine("lookup", "<key>", "Prints what the topics hold of one command: results, session state, dead letters, retry records.\n"+
		"<key> is the command's idempotency key, or invalid-<topic>-<partition>-<offset> for a command whose key was invalid.", 1, 1)
	timeout := fs.Duration("timeout", time.Minute, "fail when the topics are not read to their end within this long")
	connect := fs.Duration("connect-timeout", 10*time.Second, "fail when the brokers do not answer within this long")
	pos, code, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	key := pos[0]
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
	if err := cl.brokersAnswer(ctx, *connect); err != nil {
		fmt.Fprintf(stderr, "connector lookup: %v\n", err)
		return exitFailed
	}
	lines, err := lookup.Find(ctx, lookup.Config{Topics: kitTopics(cfg.Topics), Decoder: dec, Client: cl.Client}, key)
	if err != nil {
		fmt.Fprintf(stderr, "connector lookup: %v\n", cl.explain(err))
		return exitFailed
	}
	if len(lines) == 0 {
		fmt.Fprintf(stderr, "connector lookup: nothing of %s in the topics\n", codec.Scrub(key))
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
