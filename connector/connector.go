package connector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/plugin/kprom"
	"golang.org/x/sync/errgroup"

	"github.com/paysession/paysession/connector/control"
	"github.com/paysession/paysession/connector/ingress"
	"github.com/paysession/paysession/connector/pipeline"
	"github.com/paysession/paysession/connector/publish"
	"github.com/paysession/paysession/connector/reconcile"
	"github.com/paysession/paysession/connector/sessionwriter"
	"github.com/paysession/paysession/connector/topics"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/kafka"
	"github.com/paysession/paysession/internal/outbound"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/tracing"
	"github.com/paysession/paysession/internal/tracing/kafkatrace"
)

// Options are what a Connector needs besides its configuration.
type Options struct {
	// Config is the loaded configuration (required).
	Config *config.Config
	// Logger (required).
	Logger *slog.Logger
	// InstanceID makes this replica's transactional id unique and stable
	// across its restarts (default: PAYSESSION_KAFKA_INSTANCE_ID, else the
	// host name, which is the pod name).
	InstanceID string
	// WebhookListener and OpsListener replace the configured listen
	// addresses (the demo and tests pass ":0" listeners).
	WebhookListener, OpsListener net.Listener
	// HTTPClient is the API client's transport (default: a pooled client
	// with the configured request timeout).
	HTTPClient *http.Client
	// Build names the running build in /status (absent when nil).
	Build *Build
	// KafkaOpts are added after the configured Kafka options (the demo adds
	// nothing; tests may shorten metadata ages).
	KafkaOpts []kgo.Opt
}

// Connector is the running product: pipeline, webhook ingress,
// reconciler, publishers and the ops server, stopped in a fixed order.
type Connector struct {
	log      *slog.Logger
	grace    time.Duration
	producer *Producer
	limits   *topics.Live    // every topic's max.message.bytes, read again by Run
	sizer    *outbound.Sizer // sizes every record the connector writes against limits
	webhook  *HTTPServer
	ingress  *ingress.Ingress
	ops      *HTTPServer
	recon    *reconcile.Reconciler
	pubs     *publish.Publishers
	pipe     *pipeline.Pipeline
	control  *control.Reader // operators' pause and resume, obeyed by pipe
	// controlTopic is the control topic's name (PAYSESSION_TOPIC_CONTROL).
	controlTopic string
	// instance is this replica's instance id (Options.InstanceID).
	instance string
	writer   *sessionwriter.Writer
	// stopTracing flushes and releases the tracer provider (tracing.Setup).
	stopTracing func(context.Context) error
	// Registry holds every metric the connector exports at /metrics.
	Registry *prometheus.Registry
}

// New builds every part from the configuration. Nothing runs until Run.
func New(ctx context.Context, o Options) (*Connector, error) {
	// Tracing first, so every client built below gets its hooks; off
	// unless the OTEL_* variables configure an exporter.
	stopTracing, err := tracing.Setup(ctx, os.Getenv, o.Logger)
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	c, err := newConnector(ctx, o)
	if err != nil {
		_ = stopTracing(context.Background())
		return nil, err
	}
	c.stopTracing = stopTracing
	return c, nil
}

// newConnector wires every part: the shared Kafka options, the API client
// and codecs, the producer, then the pipeline, session writer, webhook
// ingress, reconciler, publishers and ops server that use them. What it
// built is released if a later part fails.
func newConnector(ctx context.Context, o Options) (_ *Connector, err error) {
	cfg := o.Config
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	kafkaOpts, err := kafka.ClientOpts(cfg.Kafka)
	if err != nil {
		return nil, err
	}
	kafkaOpts = append(append(kafkaOpts, kgo.WithLogger(newKafkaLogger(o.Logger))), o.KafkaOpts...)
	report, err := verifyTopics(ctx, cfg, kafkaOpts, o.Logger)
	if err != nil {
		return nil, err
	}
	// Every record the connector writes is sized against its topic's
	// max.message.bytes as last read (read again every
	// topics.DefaultRefreshInterval by Run), by one Sizer.
	limits := topics.NewLive(report)
	sizer, err := outbound.NewSizer(limits, reg, o.Logger.With("part", "sizes"))
	if err != nil {
		return nil, err
	}

	api, err := newAPIClient(cfg, o)
	if err != nil {
		return nil, err
	}
	enc, dec, err := NewCodecs(ctx, cfg, o.Logger)
	if err != nil {
		return nil, err
	}
	// kprom registers its collectors per client and unregisters them when
	// it closes: the producer's as paysession_kafka_* (a fresh set per
	// rebuild, producer.go), the pipeline's (rebuilt after an unknown
	// transaction end) as paysession_kafka_pipeline_*.
	producer, err := NewProducer(func(caps ...kgo.Opt) (*kgo.Client, error) {
		return kgo.NewClient(append(append(append([]kgo.Opt{}, kafkaOpts...), caps...), kgo.RequiredAcks(kgo.AllISRAcks()),
			kgo.WithHooks(kprom.NewMetrics("paysession_kafka", kprom.Registerer(reg))), kgo.WithHooks(kafkatrace.Hooks()...))...)
	}, limits, o.Logger.With("part", "producer"))
	if err != nil {
		return nil, fmt.Errorf("kafka producer: %w", err)
	}
	defer func() {
		if err != nil {
			producer.Close()
		}
	}()
	c := &Connector{log: o.Logger, grace: cfg.ShutdownGrace, producer: producer, limits: limits, sizer: sizer, Registry: reg}

	instance := o.InstanceID
	if instance == "" {
		instance = cfg.InstanceID()
	}
	c.instance = instance
	groupOpts := append(append([]kgo.Opt{}, kafkaOpts...), kafka.GroupOpts(cfg.Kafka)...)
	if cfg.Kafka.StaticMembership {
		// One group.instance.id per replica, the same in each of its groups
		// (pipeline, session writer, reconciler): a restart rejoins them
		// without a rebalance.
		groupOpts = append(groupOpts, kgo.InstanceID(instance))
	}
	c.controlTopic = cfg.Topics.Control
	c.control, err = control.New(control.Config{Kafka: kafkaOpts, Topic: cfg.Topics.Control, Kinds: kindNames(),
		Logger: c.log.With("part", "control"), Registerer: reg})
	if err != nil {
		return nil, err
	}
	c.pipe, err = pipeline.New(pipeline.Config{
		Paused: c.pausedKinds,
		ClientHooks: func() []kgo.Hook {
			return append([]kgo.Hook{kprom.NewMetrics("paysession_kafka", kprom.Subsystem("pipeline"), kprom.Registerer(reg))},
				kafkatrace.Hooks()...)
		},
		Kafka: groupOpts, GroupID: cfg.Kafka.GroupID, TransactionalID: cfg.Kafka.TransactionalIDPrefix + "-" + instance,
		Topics: pipelineTopics(cfg.Topics), Sizer: sizer, API: api, Decoder: dec, Encoder: enc,
		APIVersion: cfg.API.Version, Concurrency: cfg.Pipeline.MaxInFlight, BatchDeadline: cfg.Pipeline.BatchDeadline,
		MaxPerSession: cfg.Pipeline.MaxPerSession, TransactionTimeout: cfg.Pipeline.TransactionTimeout, ShutdownGrace: cfg.ShutdownGrace / 2,
		KeyLifetimeMargin: cfg.Pipeline.KeyLifetimeMargin, RateLimit: cfg.API.RateLimit,
		Retry: pipeline.RetryPolicy{Initial: cfg.API.Retry.BackoffBase, Max: cfg.API.Retry.BackoffMax,
			MaxAttempts: cfg.API.Retry.MaxAttempts, Budget: cfg.API.Retry.MaxElapsed},
		JitterSeed: uint64(time.Now().UnixNano()), Logger: c.log.With("part", "pipeline"), Registerer: reg,
	})
	if err != nil {
		return nil, err
	}
	c.writer, err = sessionwriter.New(sessionwriter.Config{
		Kafka: groupOpts, GroupID: cfg.Kafka.GroupID + "-sessions",
		TransactionalID: cfg.Kafka.TransactionalIDPrefix + "-" + instance + "-sessions",
		ClientHooks: func() []kgo.Hook {
			return append([]kgo.Hook{kprom.NewMetrics("paysession_kafka", kprom.Subsystem("session_writer"), kprom.Registerer(reg))},
				kafkatrace.Hooks()...)
		},
		TransactionTimeout: cfg.Pipeline.TransactionTimeout, Sizer: sizer,
		UpdatesTopic: cfg.Topics.SessionUpdates, SessionsTopic: cfg.Topics.Sessions, EventsTopic: cfg.Topics.WebhookEvents,
		EventWindow: cfg.Webhook.DedupTTL, Horizon: cfg.Sessions.Horizon, CommitInterval: cfg.Sessions.CommitInterval, Decoder: dec, Encoder: enc,
		Logger: c.log.With("part", "session-writer"), Registerer: reg,
	})
	if err != nil {
		return nil, err
	}
	if err = c.buildWebhook(cfg, o, enc, api); err != nil {
		return nil, err
	}
	if cfg.Reconciler.Interval > 0 {
		c.recon, err = reconcile.New(reconcile.Config{
			Brokers: cfg.Kafka.Brokers, KafkaOpts: groupOpts, Group: cfg.Kafka.GroupID + "-reconciler",
			SessionsTopic: cfg.Topics.Sessions, UpdatesTopic: cfg.Topics.SessionUpdates, Producer: producer, Encoder: enc, API: api,
			Sizer:      sizer.Pinned(producer.Caps()),
			Decoder:    reconcile.CodecStateDecoder{Decoder: dec},
			APIVersion: cfg.API.Version, QuietAfter: cfg.Reconciler.QuietAfter,
			MaxAge: cfg.Reconciler.MaxAge, Horizon: cfg.Sessions.Horizon, Tick: cfg.Reconciler.Interval, Confirm: confirmPolicy(cfg.Confirm),
			Registerer: reg, Logger: c.log.With("part", "reconciler"),
		})
		if err != nil {
			return nil, err
		}
	}
	c.pubs, err = publish.New(publish.Config{API: api, Producer: producer, Encoder: enc, Sizer: sizer.Pinned(producer.Caps()),
		WalletInterval: cfg.Publish.WalletBalanceInterval, BanksInterval: cfg.Publish.FPSBanksInterval,
		WalletTopic: cfg.Topics.WalletBalances, BanksTopic: cfg.Topics.FPSBanks,
		Registerer: reg, Logger: c.log.With("part", "publish")})
	if err != nil {
		return nil, err
	}
	if err = c.buildOps(cfg, o); err != nil {
		return nil, err
	}
	return c, nil
}

// buildWebhook builds the webhook ingress: it binds each webhook to a
// session this replica's session writer holds, or that session/status
// under the path's project finds (api), before publishing it.
func (c *Connector) buildWebhook(cfg *config.Config, o Options, enc *codec.Encoder, api *payapi.Client) error {
	if !cfg.Webhook.Enabled {
		return nil
	}
	verifier, err := webhookVerifier(cfg.API)
	if err != nil {
		return err
	}
	c.ingress, err = ingress.New(ingress.Config{Path: cfg.Webhook.Path, DefaultProject: cfg.API.Project,
		Projects: cfg.ExtraProjectIDs(), Sessions: c.writer, API: api, Verifier: verifier, Producer: c.producer, Encoder: enc, Sizer: c.sizer.Pinned(c.producer.Caps()), UpdatesTopic: cfg.Topics.SessionUpdates,
		MaxBodyBytes: cfg.Webhook.MaxBodyBytes, MaxBodies: cfg.Webhook.MaxConnections, BodyTimeout: cfg.Webhook.BodyTimeout,
		MaxInFlight: cfg.Webhook.MaxInFlight, DedupeTTL: cfg.Webhook.DedupTTL, DedupeMaxEntries: cfg.Webhook.DedupMax,
		DefaultAPIVersion: cfg.API.Version, Registerer: c.Registry, Logger: c.log.With("part", "webhook")})
	if err != nil {
		return err
	}
	l := o.WebhookListener
	if l == nil {
		if l, err = Listen(cfg.Webhook.ListenAddr); err != nil {
			return err
		}
	}
	c.webhook = &HTTPServer{Name: "webhook", Listener: l, Handler: c.ingress, Grace: cfg.ShutdownGrace / 3, Logger: c.log,
		ReadHeaderTimeout: cfg.Webhook.ReadHeaderTimeout, ReadTimeout: cfg.Webhook.ReadTimeout,
		IdleTimeout: cfg.Webhook.IdleTimeout, MaxHeaderBytes: cfg.Webhook.MaxHeaderBytes, MaxConnections: cfg.Webhook.MaxConnections}
	return nil
}

func (c *Connector) buildOps(cfg *config.Config, o Options) error {
	ready := NewReadiness()
	ready.Add("kafka", func(ctx context.Context) error { return c.producer.Ping(ctx) })
	ready.Add("group", c.pipe.GroupJoined)
	// Ready once the control topic was read to its end: until then the
	// pipeline takes nothing (an operator's pause may be on it). A pause
	// itself is a detail, not unreadiness: a paused connector is healthy.
	ready.Add("control", c.controlKnown)
	ready.AddDetail("paused", c.pauseDetail)
	present := topicsPresent(c.producer.Client, TopicWants(cfg))
	ready.Add("topics", func(ctx context.Context) error { return errors.Join(c.pipe.Writable(ctx), present(ctx)) })
	// The partner API's reachability is a metric, not readiness: webhooks
	// need no API, and the pipeline backs off by itself while it fails.
	if err := c.Registry.Register(NewReachability("api", DialCheck(cfg.API.BaseURL))); err != nil {
		return err
	}
	// Ready once the session writer has taken over its partitions: until
	// then updates of those sessions wait.
	ready.Add("session-writer", c.writer.Ready)
	if c.recon != nil {
		// Ready once the reconciler has read its sessions partitions, so it
		// polls every open session of them.
		ready.Add("reconciler", c.recon.Ready)
	}
	l := o.OpsListener
	if l == nil {
		var err error
		if l, err = Listen(cfg.Metrics.ListenAddr); err != nil {
			return err
		}
	}
	status := StatusSources{Instance: c.instance, Build: o.Build, Pipeline: c.pipe.Status,
		SessionWriter: c.writer.Status, Paused: c.pauseDetail}
	c.ops = &HTTPServer{Name: "ops", Listener: l, Handler: OpsHandler(c.Registry, ready, WithPprof(cfg.Metrics.Pprof),
		WithStatus(StatusHandler(status.Status))),
		Grace: time.Second, Logger: c.log}
	if cfg.Metrics.Pprof {
		// A CPU profile or trace lasts its seconds parameter (30 by
		// default), which pprof refuses at or beyond the WriteTimeout.
		c.ops.WriteTimeout = 2 * time.Minute
	}
	return nil
}

// WebhookAddr is the address the webhook endpoint listens on ("" when off).
func (c *Connector) WebhookAddr() string {
	if c.webhook == nil {
		return ""
	}
	return c.webhook.Listener.Addr().String()
}

// OpsAddr is the address of /metrics, /healthz and /readyz.
func (c *Connector) OpsAddr() string { return c.ops.Listener.Addr().String() }

// Run runs every part until ctx ends or one fails, then stops them in
// order: webhooks, then reconciler and publishers, then the pipeline, then
// the session writer, then the Kafka producer; the ops server answers until
// the end.
func (c *Connector) Run(ctx context.Context) error {
	failed, fail := context.WithCancel(ctx)
	defer fail()
	stages := [][]func(context.Context) error{
		{c.webhookRun},
		{c.reconcileRun, c.pubs.Run},
		{c.pipe.Run, c.control.Run},
		{c.writer.Run},
	}
	opsCtx, opsStop := context.WithCancel(context.Background())
	opsDone := make(chan error, 1)
	go func() { opsDone <- c.ops.Run(opsCtx) }()
	limitsCtx, limitsStop := context.WithCancel(context.Background())
	limitsDone := make(chan error, 1)
	go func() {
		limitsDone <- c.limits.Run(limitsCtx, func() *kadm.Client { return kadm.NewClient(c.producer.Client()) },
			topics.DefaultRefreshInterval, c.log.With("part", "sizes"))
	}()
	var (
		cancels []context.CancelFunc
		groups  []*errgroup.Group
	)
	for _, stage := range stages {
		sctx, cancel := context.WithCancel(context.Background())
		g := &errgroup.Group{}
		for _, run := range stage {
			g.Go(func() error {
				err := run(sctx)
				if err != nil {
					fail()
				}
				return err
			})
		}
		cancels, groups = append(cancels, cancel), append(groups, g)
	}
	<-failed.Done()
	c.log.Info("stopping", slog.Duration("grace", c.grace))
	var errs []error
	for i := range groups {
		cancels[i]()
		if err := groups[i].Wait(); err != nil && !errors.Is(err, context.Canceled) {
			errs = append(errs, err)
		}
	}
	limitsStop()
	<-limitsDone
	c.producer.Close()
	opsStop()
	if err := <-opsDone; err != nil {
		errs = append(errs, err)
	}
	c.flushTraces()
	c.log.Info("stopped")
	return errors.Join(errs...)
}

func (c *Connector) webhookRun(ctx context.Context) error {
	if c.webhook == nil {
		<-ctx.Done()
		return nil
	}
	err := c.webhook.Run(ctx)
	sctx, cancel := context.WithTimeout(context.Background(), c.grace/3)
	defer cancel()
	return errors.Join(err, c.ingress.Shutdown(sctx))
}

func (c *Connector) reconcileRun(ctx context.Context) error {
	if c.recon == nil {
		<-ctx.Done()
		return nil
	}
	return c.recon.Run(ctx)
}

// Close releases what New built when Run is never called.
func (c *Connector) Close() {
	c.producer.Close()
	if c.webhook != nil {
		c.webhook.Listener.Close()
	}
	c.ops.Listener.Close()
	c.flushTraces()
}

// flushTraces exports the spans still buffered and releases the tracer
// provider; a failure is logged, it never fails the stop.
func (c *Connector) flushTraces() {
	if c.stopTracing == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.stopTracing(ctx); err != nil {
		c.log.Warn("tracing: spans not flushed at stop", slog.Any("error", err))
	}
	c.stopTracing = nil
}

// kindNames returns the name of every command kind.
func kindNames() []string {
	var out []string
	for _, k := range codec.Kinds() {
		out = append(out, string(k))
	}
	return out
}

// pausedKinds is the pipeline's Config.Paused: the kinds an operator
// paused, known once the control topic was read to its end.
func (c *Connector) pausedKinds() ([]string, bool) {
	state, known := c.control.Paused()
	kinds := make([]string, 0, len(state))
	for k := range state {
		kinds = append(kinds, k)
	}
	return kinds, known
}

// controlKnown is a readiness check: the control topic was read to its
// end.
func (c *Connector) controlKnown(context.Context) error {
	if _, known := c.control.Paused(); !known {
		return fmt.Errorf("control topic %s not read to its end yet: no command is taken", c.controlTopic)
	}
	return nil
}

// pauseDetail is the /readyz detail of an operator's pause: each paused
// kind with who paused it and when, "unknown" before the control topic was
// read to its end, nil when nothing is paused.
func (c *Connector) pauseDetail() any {
	state, known := c.control.Paused()
	if !known {
		return "unknown: the control topic is being read"
	}
	if len(state) == 0 {
		return nil
	}
	return state
}
