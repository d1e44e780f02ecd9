// Package inproc starts the connector in the test's own process, the code `connector run`
// runs, for every integration suite that does so: one way to start it, so that a suite states
// only what it does differently (as Watermill's one contract suite takes a constructor per
// backend). NewRig prepares what a connector runs against (a sandbox, fresh topics, the
// variables with TestTimings); Rig.Start runs a connector of the rig until the test ends,
// Rig.New only builds one (for tests of the start itself). Launch is the same start without a
// test, for the bench.
//
// It is apart from package harness because the connector's own packages test against
// harness's broker: harness must not import the connector.
package inproc

import (
	"context"
	"io"
	"maps"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/paysim"
)

// HookPath is the webhook path of a test connector (PAYSESSION_WEBHOOK_PATH).
const HookPath = "/webhooks/paysession"

// TestTimings are the variables NewRig adds to harness.Sandbox's: a group rebalance, a batch deadline,
// a transaction and a stop that take seconds, not the production minutes, a reconciler that
// polls every second, the webhook path, and a quiet text log. A suite changes any of them in
// Rig.Vars.
func TestTimings() map[string]string {
	return map[string]string{
		"PAYSESSION_KAFKA_SESSION_TIMEOUT":        "6s",
		"PAYSESSION_PIPELINE_BATCH_DEADLINE":      "2s",
		"PAYSESSION_PIPELINE_TRANSACTION_TIMEOUT": "30s",
		"PAYSESSION_RECONCILER_INTERVAL":          "1s",
		"PAYSESSION_SHUTDOWN_GRACE":               "6s",
		"PAYSESSION_WEBHOOK_PATH":                 HookPath,
		"PAYSESSION_LOG_LEVEL":                    "warn",
		"PAYSESSION_LOG_FORMAT":                   "text",
	}
}

// testKafkaOpts shorten the client's waits: a new topic's metadata within a quarter second, a
// fetch answered within 100 ms.
var testKafkaOpts = []kgo.Opt{kgo.MetadataMinAge(250 * time.Millisecond), kgo.MetadataMaxAge(2 * time.Second),
	kgo.FetchMaxWait(100 * time.Millisecond)}

// Rig is what a test's connectors run against: a sandbox (harness.Sandbox) whose webhooks go to Webhook,
// fresh topics, and the connector's variables.
type Rig struct {
	Sandbox *paysim.Server
	// Vars are the connectors' PAYSESSION_* variables: harness.Sandbox's and TestTimings, which the test
	// may change before it starts a connector.
	Vars map[string]string
	// Webhook is the listener the sandbox sends webhooks to: the webhook listener of the
	// connector Start runs without a WebhookListener option (at most one such connector).
	Webhook net.Listener
}

// RigOption changes what NewRig prepares.
type RigOption func(*rigConfig)

type rigConfig struct {
	project    string
	extra      []string
	noWebhooks bool
}

// Project names the sandbox's project (PAYSESSION_API_PROJECT), and so the group and
// transactional ids; default "connector".
func Project(name string) RigOption { return func(c *rigConfig) { c.project = name } }

// ExtraProject adds a second partner project with its own key
// (PAYSESSION_API_EXTRA_PROJECTS), whose webhooks go to the webhook path followed by
// "/"+name.
func ExtraProject(name string) RigOption {
	return func(c *rigConfig) { c.extra = append(c.extra, name) }
}

// NoWebhooks makes a sandbox that sends no webhook.
func NoWebhooks() RigOption { return func(c *rigConfig) { c.noWebhooks = true } }

// NewRig starts a rig's sandbox and creates its topics, all ended with t.
func NewRig(t testing.TB, opts ...RigOption) *Rig {
	t.Helper()
	cfg := rigConfig{project: "connector"}
	for _, o := range opts {
		o(&cfg)
	}
	r := &Rig{Webhook: harness.Listen(t)}
	hookURL := "http://" + r.Webhook.Addr().String() + HookPath
	if cfg.noWebhooks {
		hookURL = ""
	}
	r.Sandbox, r.Vars = harness.Sandbox(t, cfg.project, hookURL, cfg.extra...)
	maps.Copy(r.Vars, TestTimings())
	return r
}

// Topic returns the topic of the variable PAYSESSION_TOPIC_<name>.
func (r *Rig) Topic(name string) string { return r.Vars[config.Prefix+"TOPIC_"+name] }

// Config loads the rig's variables.
func (r *Rig) Config(t testing.TB) *config.Config {
	t.Helper()
	cfg, err := config.Load(context.Background(), envconfig.MapLookuper(r.Vars))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// ConnectorOption changes how Start and New build a connector.
type ConnectorOption func(*LaunchConfig)

// InstanceID is the connector's instance id (PAYSESSION_KAFKA_INSTANCE_ID); default the rig's
// group id. Each replica of a rig needs its own.
func InstanceID(id string) ConnectorOption { return func(c *LaunchConfig) { c.InstanceID = id } }

// LogTo sends the connector's log (at PAYSESSION_LOG_LEVEL, in PAYSESSION_LOG_FORMAT) to w;
// default harness.FailureLog(t, "CONNECTOR_TEST_LOG").
func LogTo(w io.Writer) ConnectorOption { return func(c *LaunchConfig) { c.Log = w } }

// HTTPClient is the connector's API client transport.
func HTTPClient(h *http.Client) ConnectorOption { return func(c *LaunchConfig) { c.HTTPClient = h } }

// WebhookListener serves the connector's webhooks on l instead of Rig.Webhook.
func WebhookListener(l net.Listener) ConnectorOption {
	return func(c *LaunchConfig) { c.WebhookListener = l }
}

// launchConfig is the LaunchConfig of a connector of r with opts.
func (r *Rig) launchConfig(t testing.TB, opts []ConnectorOption) LaunchConfig {
	c := LaunchConfig{InstanceID: r.Vars[config.Prefix+"KAFKA_GROUP_ID"], OpsListener: harness.Listen(t),
		KafkaOpts: testKafkaOpts}
	for _, o := range opts {
		o(&c)
	}
	if c.WebhookListener == nil {
		c.WebhookListener = r.Webhook
	}
	if c.Log == nil {
		c.Log = harness.FailureLog(t, "CONNECTOR_TEST_LOG")
	}
	return c
}

// New builds a connector of the rig's variables, as connector run would, without running it.
func (r *Rig) New(t testing.TB, opts ...ConnectorOption) (*connector.Connector, error) {
	t.Helper()
	c := r.launchConfig(t, opts)
	return c.build(context.Background(), r.Config(t))
}

// Start builds a connector of the rig's variables and runs it until t ends; Connector.Stop
// stops it sooner.
func (r *Rig) Start(t testing.TB, opts ...ConnectorOption) *Connector {
	t.Helper()
	cfg := r.Config(t)
	lc := r.launchConfig(t, opts)
	c, err := lc.build(context.Background(), cfg)
	if err != nil {
		t.Fatalf("connector.New: %v", err)
	}
	return &Connector{Connector: c, Config: cfg, Stop: harness.Background(t, "connector "+lc.InstanceID, c.Run)}
}

// Connector is a running connector of a rig.
type Connector struct {
	*connector.Connector
	Config *config.Config
	// Stop stops the connector and returns Run's error (see harness.Background).
	Stop func() error
}

// AwaitReady waits until the connector's /readyz answers 200, for at most 60 s; the failure
// quotes the last answer.
func (c *Connector) AwaitReady(t testing.TB) {
	t.Helper()
	last := "no answer"
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + c.OpsAddr() + "/readyz")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			last = resp.Status + " " + string(body)
		}
		if time.Now().After(deadline) {
			t.Fatalf("connector not ready within 60s; last /readyz: %s", last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// LaunchConfig is how Launch builds a connector beyond its variables.
type LaunchConfig struct {
	InstanceID                   string
	WebhookListener, OpsListener net.Listener
	HTTPClient                   *http.Client
	KafkaOpts                    []kgo.Opt
	// Log receives the connector's log, at PAYSESSION_LOG_LEVEL in PAYSESSION_LOG_FORMAT.
	Log io.Writer
}

func (c LaunchConfig) build(ctx context.Context, cfg *config.Config) (*connector.Connector, error) {
	return connector.New(ctx, connector.Options{Config: cfg, Logger: connector.NewLogger(c.Log, cfg.Log),
		InstanceID: c.InstanceID, WebhookListener: c.WebhookListener, OpsListener: c.OpsListener,
		HTTPClient: c.HTTPClient, KafkaOpts: c.KafkaOpts})
}

// Launch loads vars, builds the connector and runs it until stop, which returns Run's error.
// It is Start for a program (the bench) with no test to end it.
func Launch(ctx context.Context, vars map[string]string, lc LaunchConfig) (c *connector.Connector, cfg *config.Config, stop func() error, err error) {
	if cfg, err = config.Load(ctx, envconfig.MapLookuper(vars)); err != nil {
		return nil, nil, nil, err
	}
	if c, err = lc.build(ctx, cfg); err != nil {
		return nil, nil, nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- c.Run(runCtx) }()
	return c, cfg, func() error { cancel(); return <-done }, nil
}
