package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/integration/harness/inproc"
	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/paysim"
)

// env is everything a bench run drives: the broker, the sandbox (a paysim
// process), the connector (running in this process), a producer of
// commands and the results collector. Goroutines of each part carry a pprof
// label part=bench-clients|connector, so a CPU profile tells the
// connector's share of the process.
type env struct {
	dir      string
	brokers  []string
	broker   *harness.Broker // nil with KAFKA_BROKERS
	admin    *kadm.Client
	topics   []string
	cfg      *config.Config
	sandbox  *sandboxProc    // its own process: not in this process's CPU and RSS
	service  *rsa.PrivateKey // signs webhooks, as the service does
	conn     *connector.Connector
	stopConn func() error
	producer *kgo.Client
	results  *collector
	hookURL  string
	// gcLog is the broker's GC log (brokergc.go): the one of a broker this
	// bench started, or -broker-gc-log; empty when unknown.
	gcLog string
}

func randomID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func startEnv(ctx context.Context, o options, log *slog.Logger) (e *env, err error) {
	e = &env{}
	defer func() {
		if err != nil {
			e.close()
			e = nil
		}
	}()
	if e.dir, err = os.MkdirTemp("", "paysession-bench-"); err != nil {
		return e, err
	}
	if err := e.startBroker(ctx, o, log); err != nil {
		return e, err
	}
	if err := e.startSandbox(ctx); err != nil {
		return e, err
	}
	if err := e.startConnector(ctx, o, log); err != nil {
		return e, err
	}
	pprof.Do(ctx, pprof.Labels("part", "bench-clients"), func(ctx context.Context) {
		e.producer, err = kgo.NewClient(kgo.SeedBrokers(e.brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
			kgo.ProducerLinger(2*time.Millisecond), kgo.MaxBufferedRecords(1<<20))
		if err == nil {
			e.results, err = startCollector(ctx, e.brokers, e.cfg.Topics.CommandResults)
		}
	})
	return e, err
}

func (e *env) startBroker(ctx context.Context, o options, log *slog.Logger) error {
	e.gcLog = o.brokerGCLog
	if b := os.Getenv(harness.BrokersEnv); b != "" {
		e.brokers = strings.Split(b, ",")
		log.Info("kafka: using KAFKA_BROKERS", "brokers", b)
	} else {
		log.Info("kafka: starting a local broker")
		e.gcLog = filepath.Join(e.dir, "broker-gc.log")
		b, err := harness.StartBroker(ctx, harness.BrokerConfig{Dir: filepath.Join(e.dir, "kafka"), Logger: log,
			Heap: brokerHeap, InitialHeap: brokerHeap, JVMArgs: brokerGCLogArgs(e.gcLog)})
		if err != nil {
			return fmt.Errorf("start broker: %w", err)
		}
		e.broker, e.brokers = b, []string{b.Addr()}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.brokers...))
	if err != nil {
		return err
	}
	e.admin = kadm.NewClient(cl)
	return nil
}

// startSandbox writes the dev keys (the bench keeps the service key to
// sign its webhooks) and starts the sandbox as its own process with them.
func (e *env) startSandbox(ctx context.Context) error {
	_, service, err := paysim.DevKeys(e.dir)
	if err != nil {
		return err
	}
	e.service = service
	// No webhook URL: the sandbox would send one webhook per operation to
	// the connector and halve what the command phases measure; the webhook
	// phase posts its own signed webhooks.
	e.sandbox, err = startSandboxProc(ctx, e.dir, "bench")
	return err
}

// topicVars creates one fresh topic per topic variable (the command topic
// of init_payout with the given partitions) and returns the variables.
func (e *env) topicVars(ctx context.Context, partitions int) (map[string]string, error) {
	prefix := "bench-" + randomID() + "-"
	vars := map[string]string{}
	for _, v := range config.Variables() {
		if !strings.HasPrefix(v.Name, config.Prefix+"TOPIC_") {
			continue
		}
		name := prefix + strings.ToLower(strings.TrimPrefix(v.Name, config.Prefix+"TOPIC_"))
		p := int32(1)
		if v.Name == config.Prefix+"TOPIC_INIT_PAYOUT" {
			p = int32(partitions)
		}
		if err := e.createTopic(ctx, name, p, harness.TopicConfigs(v.Name)); err != nil {
			return nil, err
		}
		vars[v.Name] = name
	}
	return vars, nil
}

// createTopic creates a topic of the bench's (the broker's default
// replication) and records it for deletion when the bench ends.
func (e *env) createTopic(ctx context.Context, name string, partitions int32, configs map[string]*string) error {
	res, err := e.admin.CreateTopic(ctx, partitions, -1, configs, name)
	if err == nil {
		err = res.Err
	}
	if err != nil {
		return fmt.Errorf("create topic %s: %w", name, err)
	}
	e.topics = append(e.topics, name)
	return nil
}

func (e *env) startConnector(ctx context.Context, o options, log *slog.Logger) error {
	vars, err := e.topicVars(ctx, o.partitions)
	if err != nil {
		return err
	}
	webhookL, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	opsL, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return errors.Join(err, webhookL.Close())
	}
	id := "bench-" + randomID()
	maps.Copy(vars, harness.SandboxVars(e.sandbox.url, "bench", e.dir, e.brokers, id))
	maps.Copy(vars, map[string]string{
		"PAYSESSION_WEBHOOK_PATH":           inproc.HookPath,
		"PAYSESSION_PIPELINE_MAX_IN_FLIGHT": strconv.Itoa(o.maxInFlight),
		"PAYSESSION_LOG_LEVEL":              o.logLevel,
		"PAYSESSION_LOG_FORMAT":             "text",
		"PAYSESSION_SHUTDOWN_GRACE":         "10s",
	})
	e.hookURL = "http://" + webhookL.Addr().String() + inproc.HookPath
	pprof.Do(ctx, pprof.Labels("part", "connector"), func(ctx context.Context) {
		e.conn, e.cfg, e.stopConn, err = inproc.Launch(ctx, vars, inproc.LaunchConfig{InstanceID: id,
			WebhookListener: webhookL, OpsListener: opsL, Log: os.Stderr})
	})
	if err != nil {
		return errors.Join(err, webhookL.Close(), opsL.Close())
	}
	return nil
}

func (e *env) close() {
	if e.stopConn != nil {
		if err := e.stopConn(); err != nil {
			fmt.Fprintln(os.Stderr, "bench: connector:", err)
		}
	}
	if e.results != nil {
		e.results.close()
	}
	if e.producer != nil {
		e.producer.Close()
	}
	if e.sandbox != nil {
		e.sandbox.close()
	}
	if e.admin != nil {
		if len(e.topics) > 0 {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, _ = e.admin.DeleteTopics(ctx, e.topics...)
			cancel()
		}
		e.admin.Close()
	}
	if e.broker != nil {
		_ = e.broker.Stop()
	}
	if e.dir != "" {
		_ = os.RemoveAll(e.dir)
	}
}
