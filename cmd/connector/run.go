package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/sethvargo/go-envconfig"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/signing"
)

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1 // the connector stopped with an error
	exitUsage  = 2 // bad command line or configuration
)

const usage = `Usage: connector <command> [flags]

Commands:
  run       run the connector; configuration from PAYSESSION_* environment variables
  demo      run Kafka (in-process), the sandbox and the connector with a sample story
  config    print the effective configuration with secrets redacted;
            config -describe: every variable with its default and meaning
  check     check everything run needs (variables, key files, brokers, topics,
            registry, API); one line per problem, exit 1 on any
  redrive   re-publish dead-letter records to their source topics (after a fix)
  inspect   dead letters grouped by error code and field, with counts and masked samples
  produce   write JSON commands from stdin (one per line) to a kind's command topic
            in the configured wire format: connector produce [-key K] <kind>
  tail      print the committed records of an outcome or dead-letter topic as
            decoded JSON lines: connector tail [-e] [-o offset|-t time] [-k key] <topic>
  lookup    print what the topics hold of one command (results, session state,
            dead letters, retry records): connector lookup <key>
  topics    plan, apply or verify the Kafka topics the configuration uses:
            connector topics plan|apply|verify [flags]
  pause     stop new API calls of command kinds on every replica (all when none
            is named), through the control topic: connector pause [kind...]
  resume    undo pause: connector resume [kind...]
  status    each replica's partitions, lag, in-flight calls, takeovers, pause and
            build, from its ops port: connector status -ops host:port[,...] [-json]

connector --version prints the version, revision, Go version and signer engine.

Run 'connector <command> -h' (or 'connector help <command>') for a command's
flags; flags may come before or after its arguments.
'connector config -describe' lists every variable.
`

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	return runWithInput(ctx, args, getenv, os.Stdin, stdout, stderr)
}

// runWithInput is run with the standard input of produce.
func runWithInput(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	env := envconfig.LookuperFunc(func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	})
	switch args[0] {
	case "run":
		return runConnector(ctx, args[1:], env, os.Environ(), stdout, stderr)
	case "demo":
		return runDemo(ctx, args[1:], stdout, stderr)
	case "config":
		return printConfig(ctx, args[1:], env, stdout, stderr)
	case "check":
		return runCheck(ctx, args[1:], env, os.Environ(), stdout, stderr)
	case "redrive":
		return runRedrive(ctx, args[1:], env, stdout, stderr)
	case "inspect":
		return runInspect(ctx, args[1:], env, stdout, stderr)
	case "produce":
		return runProduce(ctx, args[1:], env, stdin, stdout, stderr)
	case "tail":
		return runTail(ctx, args[1:], env, stdout, stderr)
	case "lookup":
		return runLookup(ctx, args[1:], env, stdout, stderr)
	case "topics":
		return runTopics(ctx, args[1:], env, stdout, stderr)
	case "status":
		return runStatus(ctx, args[1:], stdout, stderr)
	case "pause", "resume":
		return runPause(ctx, args[0], args[0] == "pause", args[1:], env, stdout, stderr)
	case "--version", "-version", "version":
		return printVersion(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && args[0] == "help" {
			// connector help <command>: that command's help.
			return runWithInput(ctx, []string{args[1], "-h"}, getenv, stdin, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "connector: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}

func loadConfig(ctx context.Context, env envconfig.Lookuper, stderr io.Writer) (*config.Config, bool) {
	cfg, err := config.Load(ctx, env)
	if err != nil {
		fmt.Fprintf(stderr, "connector: invalid configuration:\n%v\n", err)
		return nil, false
	}
	return cfg, true
}

func runConnector(ctx context.Context, args []string, env envconfig.Lookuper, environ []string, stdout, stderr io.Writer) int {
	fs := newCmdLine("run", "", "Runs the connector. Its configuration is the PAYSESSION_* environment variables;\n"+
		"'connector config -describe' lists them, 'connector check' checks them and what they point at.", 0, 0)
	if _, code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	// A misspelt variable would otherwise be ignored and its default apply.
	if errs := config.UnknownIn(environ); len(errs) > 0 {
		fmt.Fprintf(stderr, "connector: invalid configuration:\n%v\n", errors.Join(errs...))
		return exitUsage
	}
	cfg, ok := loadConfig(ctx, env, stderr)
	if !ok {
		return exitUsage
	}
	log := connector.NewLogger(stderr, cfg.Log)
	warnRisks(log, cfg)
	c, err := connector.New(ctx, connector.Options{Config: cfg, Logger: log, Build: connector.NewBuild(version, buildRevision())})
	if err != nil {
		log.Error("start failed", slog.Any("error", err))
		return exitFailed
	}
	c.Registry.MustRegister(connector.NewBuildInfo(version, buildRevision()))
	log.Info("starting", slog.String("version", version), slog.String("revision", buildRevision()),
		slog.String("signer", string(signing.DefaultEngine)))
	if err := c.Run(ctx); err != nil {
		log.Error("stopped with error", slog.Any("error", err))
		return exitFailed
	}
	return exitOK
}

// printConfig is `connector config`: the effective configuration with
// secrets redacted, or with -describe every variable.
func printConfig(ctx context.Context, args []string, env envconfig.Lookuper, stdout, stderr io.Writer) int {
	fs := newCmdLine("config", "", "Prints the effective configuration of the PAYSESSION_* variables, secrets redacted.", 0, 0)
	describe := fs.Bool("describe", false, "print every variable with its default and meaning instead (needs no configuration)")
	if _, code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	if *describe {
		return describeConfig(stdout)
	}
	cfg, ok := loadConfig(ctx, env, stderr)
	if !ok {
		return exitUsage
	}
	fmt.Fprint(stdout, cfg.Redacted())
	return exitOK
}

// warnRisks logs each risk the configuration was accepted with (an INSECURE
// variable set), once at the start.
func warnRisks(log *slog.Logger, cfg *config.Config) {
	for _, w := range cfg.Warnings() {
		log.Warn("configuration accepted with a risk", slog.String("warning", w))
	}
}
