package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/preflight"
	"github.com/paysession/paysession/connector/topics"
	"github.com/paysession/paysession/internal/config"
)

// runCheck is `connector check`: every problem a start would meet, one
// line each on stdout, exit 1 when there is any. environ is the process
// environment, in which an unknown PAYSESSION_* variable is a problem.
func runCheck(ctx context.Context, args []string, env envconfig.Lookuper, environ []string, stdout, stderr io.Writer) int {
	fs := newCmdLine("check", "", "Checks the variables, key files, brokers, topics (against the plan of the settings, as `connector topics verify`),\n"+
		"schema registry and partner API that `connector run` needs; prints one line per problem, exit 1 on any.", 0, 0)
	settings := topicsFlags(fs.FlagSet)
	timeout := fs.Duration("timeout", 10*time.Second, "fail a broker, registry or API that does not answer within this long")
	if _, code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	cfg := preflight.Config{Environ: environ, Env: env, Topics: settings.Settings, Timeout: *timeout}
	// The settings `connector topics apply` recorded, with the flags given
	// over them, as `connector topics verify` has them.
	cfg.TopicSettings = func(ctx context.Context, cl *kgo.Client, c *config.Config, rep topics.Report) (topics.Settings, error) {
		base, _, err := recordedSettings(ctx, cl, rep, c.Topics.Control)
		if err != nil {
			return base, err
		}
		s := settings.over(base)
		return s, validateSettings(s)
	}
	problems := preflight.Check(ctx, cfg)
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
