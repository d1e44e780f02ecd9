package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/logging"
	"github.com/paysession/paysession/internal/paysim"
)

// demoEnv holds the embedded parts of the demo: an in-process Kafka
// (kfake), the sandbox, and the connector built from the same
// configuration path as production.
type demoEnv struct {
	kafka     *kfake.Cluster
	sandbox   *paysim.Server
	connector *connector.Connector
	cfg       *config.Config
}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newCmdLine("demo", "", "Runs Kafka (in-process), the sandbox and the connector, plays a sample story and prints the outcome events.", 0, 0)
	asJSON := fs.Bool("json", false, "print outcome events as JSON lines")
	timeout := fs.Duration("timeout", 60*time.Second, "fail when the story is not done within this long")
	logLevel := fs.String("log-level", "error", "connector log level (logs go to stderr)")
	if _, code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	log := logging.New(stderr, *logLevel, "text")
	dir, err := os.MkdirTemp("", "paysession-demo-")
	if err != nil {
		fmt.Fprintf(stderr, "demo: %v\n", err)
		return exitFailed
	}
	defer os.RemoveAll(dir)
	env, err := startDemoEnv(ctx, dir, log)
	if err != nil {
		fmt.Fprintf(stderr, "demo: %v\n", err)
		return exitFailed
	}
	defer env.sandbox.Close()
	defer env.kafka.Close()

	cctx, stop := context.WithCancel(ctx)
	runErr := make(chan error, 1)
	go func() { runErr <- env.connector.Run(cctx) }()

	sctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	p := &printer{w: stdout, json: *asJSON}
	storyErr := playStory(sctx, env, p)
	stop()
	if err := <-runErr; err != nil {
		fmt.Fprintf(stderr, "demo: connector: %v\n", err)
		return exitFailed
	}
	if storyErr != nil {
		fmt.Fprintf(stderr, "demo: %v\n", storyErr)
		return exitFailed
	}
	return exitOK
}

func startDemoEnv(ctx context.Context, dir string, log *slog.Logger) (*demoEnv, error) {
	partner, service, err := paysim.DevKeys(dir)
	if err != nil {
		return nil, err
	}
	webhookL, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	opsL, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		webhookL.Close()
		return nil, err
	}
	const hookPath = "/webhooks/paysession"
	sandbox, err := paysim.New(paysim.Config{ServiceKey: service, Logger: log.With("part", "sandbox"),
		Projects: []paysim.Project{paysim.DevProject("demo", &partner.PublicKey, "http://"+webhookL.Addr().String()+hookPath)}})
	if err != nil {
		return nil, errors.Join(err, webhookL.Close(), opsL.Close())
	}
	if err := sandbox.Start("127.0.0.1:0"); err != nil {
		return nil, errors.Join(err, webhookL.Close(), opsL.Close())
	}
	cfg, err := config.Load(ctx, envconfig.MapLookuper(demoVariables(dir, sandbox.URL(), hookPath, webhookL.Addr().String(), opsL.Addr().String())))
	if err != nil {
		return nil, errors.Join(err, sandbox.Close())
	}
	kafka, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		return nil, errors.Join(err, sandbox.Close())
	}
	cfg.Kafka.Brokers = kafka.ListenAddrs()
	if err := createDemoTopics(ctx, cfg); err != nil {
		kafka.Close()
		return nil, errors.Join(err, sandbox.Close())
	}
	c, err := connector.New(ctx, connector.Options{Config: cfg, Logger: log, InstanceID: "demo",
		WebhookListener: webhookL, OpsListener: opsL})
	if err != nil {
		kafka.Close()
		return nil, errors.Join(err, sandbox.Close())
	}
	return &demoEnv{kafka: kafka, sandbox: sandbox, connector: c, cfg: cfg}, nil
}

// demoVariables is the demo's configuration, as an operator would set it.
func demoVariables(dir, apiURL, hookPath, webhookAddr, opsAddr string) map[string]string {
	return map[string]string{
		"PAYSESSION_API_BASE_URL":                 apiURL,
		"PAYSESSION_API_PROJECT":                  "demo",
		"PAYSESSION_API_PRIVATE_KEY_FILE":         filepath.Join(dir, "partner_private.pem"),
		"PAYSESSION_API_SERVICE_PUBLIC_KEY_FILES": filepath.Join(dir, "service_public.pem"),
		"PAYSESSION_KAFKA_BROKERS":                "127.0.0.1:1", // replaced by the in-process cluster's address
		"PAYSESSION_WEBHOOK_PATH":                 hookPath,
		"PAYSESSION_WEBHOOK_LISTEN_ADDR":          webhookAddr, // listeners opened by the demo
		"PAYSESSION_METRICS_LISTEN_ADDR":          opsAddr,
		"PAYSESSION_PIPELINE_BATCH_DEADLINE":      "2s",
		"PAYSESSION_PIPELINE_TRANSACTION_TIMEOUT": "30s",
		"PAYSESSION_RECONCILER_INTERVAL":          "1s",
		"PAYSESSION_SHUTDOWN_GRACE":               "5s",
		"PAYSESSION_LOG_FORMAT":                   "text",
	}
}

// createDemoTopics creates every topic of the configuration as the
// connector's start-up check wants it (connector.TopicWants: the sessions
// and attempts topics compacted), three partitions each.
func createDemoTopics(ctx context.Context, cfg *config.Config) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(cfg.Kafka.Brokers...))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	compact := "compact"
	for _, w := range connector.TopicWants(cfg) {
		var configs map[string]*string
		if w.Compacted {
			configs = map[string]*string{"cleanup.policy": &compact}
		}
		resp, err := adm.CreateTopic(ctx, 3, 1, configs, w.Topic)
		if err == nil {
			err = resp.Err
		}
		if err != nil {
			return fmt.Errorf("demo topic %s: %w", w.Topic, err)
		}
	}
	return nil
}

// newDemoClient is the story's own Kafka client: a plain producer of
// commands and a read_committed reader of every outcome topic.
func newDemoClient(env *demoEnv) (*kgo.Client, error) {
	t := env.cfg.Topics
	return kgo.NewClient(kgo.SeedBrokers(env.cfg.Kafka.Brokers...),
		kgo.ConsumeTopics(t.CommandResults, t.Sessions, t.WebhookEvents, t.DeadLetter),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.ProducerLinger(0))
}

func money(v *int64, cur *string) string {
	if v == nil {
		return ""
	}
	c := ""
	if cur != nil {
		c = " " + strings.ToUpper(*cur)
	}
	return fmt.Sprintf("%d.%02d%s", *v/100, *v%100, c)
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
