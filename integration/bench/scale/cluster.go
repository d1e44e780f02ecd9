package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/config"
)

// cluster is the Kafka cluster of a run: -brokers (KAFKA_BROKERS), or a
// broker this program starts and stops.
type cluster struct {
	brokers []string
	own     *harness.Broker // nil with -brokers
	dir     string          // own's directory
	admin   *kadm.Client
	pid     int // the broker's process id, for settle; 0 when unknown
}

func openCluster(ctx context.Context, o options, log *slog.Logger) (c *cluster, err error) {
	c = &cluster{pid: o.brokerPID}
	defer func() {
		if err != nil {
			c.close()
		}
	}()
	if o.brokers != "" {
		c.brokers = strings.Split(o.brokers, ",")
		log.Info("kafka: using the given brokers", "brokers", o.brokers)
	} else {
		if c.dir, err = os.MkdirTemp("", "paysession-bench-scale-"); err != nil {
			return c, err
		}
		log.Info("kafka: starting a local broker", "dir", c.dir)
		c.own, err = harness.StartBroker(ctx, harness.BrokerConfig{Dir: filepath.Join(c.dir, "kafka"), Logger: log,
			Heap: "1g", InitialHeap: "1g"})
		if err != nil {
			return c, fmt.Errorf("start broker: %w", err)
		}
		c.brokers, c.pid = []string{c.own.Addr()}, c.own.Pid()
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.brokers...), kgo.MetadataMinAge(100*time.Millisecond))
	if err != nil {
		return c, err
	}
	c.admin = kadm.NewClient(cl)
	return c, nil
}

func (c *cluster) close() {
	if c.admin != nil {
		c.admin.Close()
	}
	if c.own != nil {
		if err := c.own.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "bench-scale: stop broker:", err)
		}
	}
	if c.dir != "" {
		_ = os.RemoveAll(c.dir)
	}
}

// createTopics creates a topic named prefix + its role for every topic
// variable of the connector (PAYSESSION_TOPIC_*), one partition each, with
// the configuration the connector's start-up check requires (the sessions
// and attempts topics compacted, harness.TopicConfigs), and waits until
// each has a leader. It returns variable → topic name; on an error, the
// topics it created are deleted.
func (c *cluster) createTopics(ctx context.Context, prefix string) (vars map[string]string, err error) {
	vars = map[string]string{}
	defer func() {
		if err != nil {
			c.deleteTopics(vars)
		}
	}()
	for _, v := range config.Variables() {
		if !strings.HasPrefix(v.Name, config.Prefix+"TOPIC_") {
			continue
		}
		name := prefix + strings.ToLower(strings.TrimPrefix(v.Name, config.Prefix+"TOPIC_"))
		res, err := c.admin.CreateTopic(ctx, 1, -1, harness.TopicConfigs(v.Name), name)
		if err == nil {
			err = res.Err
		}
		if err != nil {
			return vars, fmt.Errorf("create topic %s: %w", name, err)
		}
		vars[v.Name] = name
	}
	return vars, c.waitLeaders(ctx, vars)
}

// waitLeaders waits until every topic of vars has a leader.
func (c *cluster) waitLeaders(ctx context.Context, vars map[string]string) error {
	names := make([]string, 0, len(vars))
	for _, n := range vars {
		names = append(names, n)
	}
	for {
		md, err := c.admin.Metadata(ctx, names...)
		led := err == nil
		for _, n := range names {
			td, ok := md.Topics[n]
			led = led && ok && td.Err == nil && len(td.Partitions) == 1 && td.Partitions[0].Err == nil && td.Partitions[0].Leader >= 0
		}
		if led {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("topics without a leader: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// deleteTopics deletes the topics of vars, with its own deadline so that
// it also runs after an interrupt.
func (c *cluster) deleteTopics(vars map[string]string) {
	if len(vars) == 0 {
		return
	}
	names := make([]string, 0, len(vars))
	for _, n := range vars {
		names = append(names, n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.admin.DeleteTopics(ctx, names...); err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale: delete topics:", err)
	}
}

// quietFor is how long the broker must stay quiet to count as settled:
// longer than the log cleaner's back-off between two looks for a log to
// clean (log.cleaner.backoff.ms, 15 s).
const quietFor = 20 * time.Second

// quietShare is the CPU share of one core under which the broker counts as
// quiet.
const quietShare = 0.15

// settle waits, at most max, until the broker's process has used less than
// quietShare of a core for quietFor: a freshly filled compacted partition
// is rewritten once by the broker's log cleaner (its keys are all
// distinct, but the cleaner learns that by reading them), and a takeover
// measured meanwhile would share the CPU with it. It returns the time
// waited, and at once when the broker's process is unknown.
func (c *cluster) settle(ctx context.Context, max time.Duration, log *slog.Logger) (time.Duration, error) {
	started := time.Now()
	if c.pid == 0 || max <= 0 {
		return 0, nil
	}
	const tick = 2 * time.Second
	last, err := cpuTime(c.pid)
	if err != nil {
		return 0, fmt.Errorf("broker process %d: %w", c.pid, err)
	}
	quiet := time.Duration(0)
	for quiet < quietFor {
		if time.Since(started) >= max {
			log.Warn("broker still busy; measuring anyway", "waited", time.Since(started).Round(time.Second))
			break
		}
		select {
		case <-ctx.Done():
			return time.Since(started), ctx.Err()
		case <-time.After(tick):
		}
		now, err := cpuTime(c.pid)
		if err != nil {
			return time.Since(started), fmt.Errorf("broker process %d: %w", c.pid, err)
		}
		if float64(now-last) < quietShare*float64(tick) {
			quiet += tick
		} else {
			quiet = 0
		}
		last = now
	}
	return time.Since(started), nil
}

// cpuTime is the user+system CPU time of process pid so far.
func cpuTime(pid int) (time.Duration, error) { return harness.ProcessCPU(strconv.Itoa(pid)) }
