package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/paysession/paysession/connector/preflight"
	"github.com/paysession/paysession/internal/config"
)

// runCheck is `connector check`: every problem a start would meet, one
// line each on stdout, exit 1 when there is any. environ is the process
// environment, in which an unknown PAYSESSION_* variable is a problem.
func runCheck(ctx context.Context, args []string, env envconfig.Lookuper, environ []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", stderr)
	settings := topicsFlags(fs)
	timeout := fs.Duration("timeout", 10*time.Second, "fail a broker, registry or API that does not answer within this long")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: connector check [flags]\n\n"+
			"Checks the variables, key files, brokers, topics (against the plan of the flags, as `connector topics`),\n"+
			"schema registry and partner API that `connector run` needs; prints one line per problem.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	problems := preflight.Check(ctx, preflight.Config{Environ: environ, Env: env, Topics: *settings, Timeout: *timeout})
	for _, p := range problems {
		fmt.Fprintln(stdout, p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(stderr, "connector check: %d problems\n", len(problems))
		return exitFailed
	}
	fmt.Fprintln(stdout, "ok: ready to run")
	return exitOK
}

// describeConfig is `connector config -describe`: every variable with its
// default and meaning, the configuration table of internal/config/README.md.
func describeConfig(stdout io.Writer) int {
	fmt.Fprint(stdout, config.VariablesTable())
	return exitOK
}
