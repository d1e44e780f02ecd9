package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/paysession/paysession/internal/paysim"
	"github.com/paysession/paysession/internal/signing"
)

type options struct {
	listen, config, devKeys, project, webhookURL, publicURL, padding, logLevel string
	latencyDist                                                                string
	autoConfirm, tokenize, requireSender                                       bool
	confirmAbove, maxBody                                                      int64
	processingDelay, webhookTimeout, latency, jitter                           time.Duration
	errorRate, dropRate, webhookRefuse                                         float64
	seed                                                                       uint64
}

// usage writes the help of fs.
func usage(fs *flag.FlagSet, out io.Writer) {
	fmt.Fprint(out, "Usage: paysim [flags]\n\nSandbox of the Payment Session Service. Needs -config, -dev-keys, or both.\n"+
		"Dev mode (-dev-keys DIR) loads or generates partner_private.pem/partner_public.pem and\n"+
		"service_private.pem/service_public.pem in DIR and registers project -project with the partner key.\n\nFlags:\n")
	fs.SetOutput(out)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// parseFlags reads the command line. The help (-h, -help, --help) is
// flag.ErrHelp, for the caller to print with usage on stdout; a flag
// error names the flag.
func parseFlags(args []string) (*options, *flag.FlagSet, error) {
	o := &options{}
	fs := flag.NewFlagSet("paysim", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8080", "listen `address` (host:port)")
	fs.StringVar(&o.config, "config", "", "JSON configuration `file` with projects and the service key (see paysim.FileConfig)")
	fs.StringVar(&o.devKeys, "dev-keys", "", "dev mode: `dir` where the partner and service key pairs are loaded or generated")
	fs.StringVar(&o.project, "project", "dev", "dev mode: project `id` (X-PARTNER-PROJECT)")
	fs.StringVar(&o.webhookURL, "webhook-url", "", "dev mode: `URL` receiving the dev project's webhooks (empty: none)")
	fs.BoolVar(&o.autoConfirm, "auto-confirm", true, "dev mode: payouts below -confirm-above finish without ready_to_confirm")
	fs.Int64Var(&o.confirmAbove, "confirm-above", paysim.DefaultConfirmAbove, "dev mode: payouts of at least this many minor units wait for session/confirm")
	fs.BoolVar(&o.tokenize, "tokenize", true, "dev mode: enable tokenize/elements for the project")
	fs.BoolVar(&o.requireSender, "require-sender", false, "dev mode: payments need participant_details.sender first_name, last_name, ipv4")
	fs.StringVar(&o.padding, "padding", "pkcs1v15", "dev mode: RSA signature padding of requests and webhooks (pkcs1v15, pss)")
	fs.DurationVar(&o.processingDelay, "processing-delay", paysim.DefaultProcessingDelay, "pause before asynchronous processing (webhooks follow responses)")
	fs.StringVar(&o.publicURL, "public-url", "", "base `URL` of 3-D Secure redirect pages (default: the request's host)")
	fs.Int64Var(&o.maxBody, "max-body", paysim.DefaultMaxBodyBytes, "request body limit in `bytes` (larger: HTTP 413)")
	fs.DurationVar(&o.webhookTimeout, "webhook-timeout", paysim.DefaultWebhookTimeout, "timeout of one webhook attempt")
	fs.DurationVar(&o.latency, "latency", 0, "fault: fixed latency added to every API call")
	fs.DurationVar(&o.jitter, "latency-jitter", 0, "fault: random extra latency (see -latency-distribution)")
	fs.StringVar(&o.latencyDist, "latency-distribution", "uniform", "fault: jitter distribution: uniform (0..jitter) or exponential (mean jitter)")
	fs.Float64Var(&o.errorRate, "error-rate", 0, "fault: probability 0..1 of HTTP 500 internal_error without executing")
	fs.Float64Var(&o.dropRate, "drop-rate", 0, "fault: probability 0..1 of executing and then dropping the connection")
	fs.Float64Var(&o.webhookRefuse, "webhook-refuse", 0, "fault: probability 0..1 that a webhook attempt counts as refused")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of fault draws and generated tokens")
	fs.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	if err := fs.Parse(args); err != nil {
		return nil, fs, err
	}
	if fs.NArg() > 0 {
		return nil, fs, fmt.Errorf("takes no arguments, only flags; got %q", fs.Args())
	}
	if o.config == "" && o.devKeys == "" {
		return nil, fs, errors.New("need -config, -dev-keys, or both")
	}
	return o, fs, nil
}

func (o *options) sandboxConfig(log *slog.Logger) (paysim.Config, error) {
	cfg := paysim.Config{Logger: log, ProcessingDelay: o.processingDelay, PublicURL: o.publicURL,
		MaxBodyBytes: o.maxBody, WebhookTimeout: o.webhookTimeout, Seed: o.seed,
		Faults: paysim.Faults{Latency: o.latency, LatencyJitter: o.jitter, LatencyDistribution: o.latencyDist,
			ErrorRate: o.errorRate, DropRate: o.dropRate, WebhookRefuse: o.webhookRefuse}}
	padding, err := signing.ParsePadding(o.padding)
	if err != nil {
		return cfg, fmt.Errorf("-padding: %w", err)
	}
	if o.config != "" {
		projects, key, err := paysim.LoadFile(o.config)
		if err != nil {
			return cfg, err
		}
		cfg.Projects, cfg.ServiceKey = projects, key
	}
	if o.devKeys != "" {
		partner, service, err := paysim.DevKeys(o.devKeys)
		if err != nil {
			return cfg, err
		}
		p := paysim.DevProject(o.project, &partner.PublicKey, o.webhookURL)
		p.AutoConfirm, p.ConfirmAbove, p.TokenizeEnabled, p.RequireSender, p.Padding =
			o.autoConfirm, o.confirmAbove, o.tokenize, o.requireSender, padding
		cfg.Projects = append(cfg.Projects, p)
		if cfg.ServiceKey == nil {
			cfg.ServiceKey, cfg.ServicePadding = service, padding
		}
		log.Info("paysim dev keys", slog.String("dir", o.devKeys), slog.String("project", o.project))
	}
	return cfg, nil
}

// run is paysim with the command line args: the help on stdout and exit 0
// for -h, a usage error on stderr and exit 2, else the sandbox until ctx
// ends (exit 0) or fails (exit 1).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, fs, err := parseFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		usage(fs, stdout)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "paysim: %v\nRun 'paysim -h' for help.\n", err)
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		fmt.Fprintln(stderr, "paysim: -log-level:", err)
		return 2
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level}))
	cfg, err := o.sandboxConfig(log)
	if err != nil {
		fmt.Fprintln(stderr, "paysim:", err)
		return 2
	}
	srv, err := paysim.New(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "paysim:", err)
		return 2
	}
	if err := srv.Run(ctx, o.listen); err != nil {
		fmt.Fprintln(stderr, "paysim:", err)
		return 1
	}
	return 0
}
