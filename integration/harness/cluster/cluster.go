package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	dnetwork "github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/go-connections/nat"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/network"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
)

// Label is set on every container, network and volume of a cluster, with the cluster's run id as
// its value: `docker ps -aq --filter label=io.paysession.chaos` finds what a killed run left.
const Label = "io.paysession.chaos"

// SessionLabel is set as well, to $CHAOS_SESSION, when that names the run of make chaos (or
// chaos-smoke) that started the test binary: that run removes what carries its own session on
// exit, and never a cluster of another run sharing the Docker daemon.
const SessionLabel = "io.paysession.chaos.session"

// SessionEnv names the variable that holds the session label's value.
const SessionEnv = "CHAOS_SESSION"

// Labels returns the labels of a cluster's containers, networks and volumes, and of anything a
// test starts beside it: Label=run and, when $CHAOS_SESSION is set, SessionLabel.
func Labels(run string) map[string]string {
	l := testcontainers.GenericLabels()
	l[Label] = run
	if s := os.Getenv(SessionEnv); s != "" {
		l[SessionLabel] = s
	}
	return l
}

// Config configures a cluster. The zero value is a 3-node cluster of Image().
type Config struct {
	// Nodes is the number of combined broker+controller nodes. Default 3.
	Nodes int
	// Image is the Kafka image. Default Image() ($CHAOS_KAFKA_IMAGE, else LocalImage).
	Image string
	// Heap is each node's maximum heap. Default "512m".
	Heap string
	// Properties override or extend every node's server properties.
	Properties map[string]string
	// StartTimeout bounds the wait until every node is a registered broker. Default 3 minutes.
	StartTimeout time.Duration
	// Logger receives progress. Default: discarded.
	Logger *slog.Logger
}

func (c *Config) setDefaults() {
	if c.Nodes == 0 {
		c.Nodes = 3
	}
	if c.Image == "" {
		c.Image = Image()
	}
	if c.Heap == "" {
		c.Heap = "512m"
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = 3 * time.Minute
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Cluster is a running Kafka cluster in containers.
type Cluster struct {
	cfg     Config
	run     string // run id: the value of Label, part of every name
	docker  *testcontainers.DockerClient
	network *testcontainers.DockerNetwork
	nodes   []*Node
}

// Start checks the environment (CheckEnvironment), creates the network, one volume per node and
// the nodes, and returns once every node is a registered broker. On failure everything it made
// is removed again.
func Start(ctx context.Context, cfg Config) (_ *Cluster, err error) {
	if err := CheckEnvironment(os.Getenv); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	if cfg.Nodes < 1 {
		return nil, fmt.Errorf("start cluster: %d nodes", cfg.Nodes)
	}
	c := &Cluster{cfg: cfg, run: randomHex(4)}
	defer func() {
		if err != nil {
			err = errors.Join(err, c.Close(context.WithoutCancel(ctx)))
		}
	}()
	if c.docker, err = testcontainers.NewDockerClientWithOpts(ctx); err != nil {
		return nil, fmt.Errorf("start cluster: docker: %w", err)
	}
	if c.network, err = network.New(ctx, network.WithLabels(c.labels())); err != nil {
		return nil, fmt.Errorf("start cluster: network: %w", err)
	}
	ports, err := harness.FreePorts(cfg.Nodes)
	if err != nil {
		return nil, fmt.Errorf("start cluster: %w", err)
	}
	id, err := harness.NewClusterID()
	if err != nil {
		return nil, err
	}
	for i := range cfg.Nodes {
		n, err := c.createNode(ctx, i+1, ports[i], id)
		if n != nil {
			c.nodes = append(c.nodes, n) // removed by Close even when it did not start
		}
		if err != nil {
			return nil, fmt.Errorf("start cluster: node %d: %w", i+1, err)
		}
	}
	cfg.Logger.Info("cluster nodes started", slog.String("image", cfg.Image), slog.Any("brokers", c.Brokers()))
	wait, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	defer cancel()
	if err := c.AwaitReady(wait); err != nil {
		var logs []string
		for _, n := range c.nodes {
			logs = append(logs, n.LogTail(ctx, 15))
		}
		return nil, fmt.Errorf("start cluster: %w\n%s", err, strings.Join(logs, "\n"))
	}
	return c, nil
}

// StartTest starts a cluster for t and removes it when t ends; it fails t when the cluster cannot
// start (also when CheckEnvironment refuses).
func StartTest(t testing.TB, cfg Config) *Cluster {
	t.Helper()
	c, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := c.Close(ctx); err != nil {
			t.Errorf("remove the cluster: %v", err)
		}
	})
	return c
}

// createNode creates node id's volume and container (started, not awaited).
func (c *Cluster) createNode(ctx context.Context, id, hostPort int, clusterID string) (*Node, error) {
	name := fmt.Sprintf("paysession-chaos-%s-%s", c.run, alias(id))
	vol, err := c.docker.VolumeCreate(ctx, volume.CreateOptions{Name: name, Labels: c.labels()})
	if err != nil {
		return nil, fmt.Errorf("volume: %w", err)
	}
	n := &Node{ID: id, c: c, name: name, volume: vol.Name, hostPort: hostPort}
	req := testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image:          c.cfg.Image,
			Name:           name,
			Labels:         c.labels(),
			Env:            nodeEnv(nodeProperties(id, c.cfg.Nodes, hostPort, c.cfg.Properties), clusterID, c.cfg.Heap),
			Networks:       []string{c.network.Name},
			NetworkAliases: map[string][]string{c.network.Name: {alias(id)}},
			ExposedPorts:   []string{fmt.Sprintf("%d/tcp", externalPort)},
			HostConfigModifier: func(hc *container.HostConfig) {
				hc.PortBindings = nat.PortMap{nat.Port(fmt.Sprintf("%d/tcp", externalPort)): {
					{HostIP: "127.0.0.1", HostPort: strconv.Itoa(hostPort)}}}
				hc.Mounts = append(hc.Mounts, mount.Mount{Type: mount.TypeVolume, Source: vol.Name, Target: dataPath})
			},
		},
		Started: true,
	}
	ctr, err := testcontainers.GenericContainer(ctx, req)
	if ctr != nil {
		n.container = ctr
	}
	return n, err
}

func (c *Cluster) labels() map[string]string { return Labels(c.run) }

// Brokers returns the bootstrap addresses of all nodes (loopback ports on this machine).
func (c *Cluster) Brokers() []string {
	out := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		out[i] = n.Addr()
	}
	return out
}

// Nodes returns the nodes, node id i+1 at index i.
func (c *Cluster) Nodes() []*Node { return c.nodes }

// Node returns the node of id (1-based).
func (c *Cluster) Node(id int) *Node { return c.nodes[id-1] }

// InternalBrokers returns the nodes' addresses on the cluster's network (their inter-broker
// listener), for clients in containers attached to that network (Network).
func (c *Cluster) InternalBrokers() []string {
	out := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		out[i] = fmt.Sprintf("%s:%d", alias(n.ID), internalPort)
	}
	return out
}

// Network is the name of the cluster's network: a container attached to it reaches the nodes at
// InternalBrokers.
func (c *Cluster) Network() string { return c.network.Name }

// Gateway returns this machine's address on the cluster's network: a container on the network
// reaches a server of the host that listens there (and only there, not on every interface).
func (c *Cluster) Gateway(ctx context.Context) (string, error) {
	info, err := c.docker.NetworkInspect(ctx, c.network.ID, dnetwork.InspectOptions{})
	if err != nil {
		return "", fmt.Errorf("inspect network %s: %w", c.network.Name, err)
	}
	for _, cfg := range info.IPAM.Config {
		if ip := net.ParseIP(cfg.Gateway); ip != nil && ip.To4() != nil {
			return cfg.Gateway, nil
		}
	}
	return "", fmt.Errorf("network %s has no IPv4 gateway: %+v", c.network.Name, info.IPAM.Config)
}

// RunID is the value of Label on the cluster's containers, network and volumes.
func (c *Cluster) RunID() string { return c.run }

// AwaitBrokers waits until the cluster's metadata lists at least n registered brokers. Each try
// uses a new client: a client's metadata can keep the cluster of its first answer.
func (c *Cluster) AwaitBrokers(ctx context.Context, n int) error {
	var last error
	for {
		md, err := c.metadata(ctx, false)
		if err == nil && len(md.Brokers) >= n {
			return nil
		}
		if err == nil {
			err = fmt.Errorf("brokers %v", md.Brokers.NodeIDs())
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("await %d brokers: %w (last: %v)", n, ctx.Err(), last)
		case <-time.After(200 * time.Millisecond): // polling the cluster: registration has no signal
		}
	}
}

// AwaitReady waits until every node answers for itself (Node.AwaitReady) and the cluster lists
// them all: after a fault, the moment the cluster is whole again.
func (c *Cluster) AwaitReady(ctx context.Context) error {
	for _, n := range c.nodes {
		if err := n.AwaitReady(ctx); err != nil {
			return err
		}
	}
	return c.AwaitBrokers(ctx, len(c.nodes))
}

// metadata asks the cluster for its brokers, and all topics' partitions when topics is set, with a
// client of its own bounded to 5 seconds.
func (c *Cluster) metadata(ctx context.Context, topics bool) (kadm.Metadata, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...))
	if err != nil {
		return kadm.Metadata{}, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if topics {
		return kadm.NewClient(cl).Metadata(ctx)
	}
	return kadm.NewClient(cl).BrokerMetadata(ctx)
}

// Close removes the nodes (unfreezing a paused one first), their volumes and the network. It is
// safe on a cluster that started only in part, and a second call does nothing.
func (c *Cluster) Close(ctx context.Context) error {
	var errs []error
	for _, n := range c.nodes {
		if n.container == nil {
			continue
		}
		_ = c.docker.ContainerUnpause(ctx, n.container.GetContainerID()) // a paused container cannot be removed
		if err := n.container.Terminate(ctx, testcontainers.StopTimeout(0)); err != nil {
			errs = append(errs, fmt.Errorf("node %d: %w", n.ID, err))
		}
		n.container = nil
	}
	for _, n := range c.nodes {
		if n.volume == "" {
			continue
		}
		if err := c.docker.VolumeRemove(ctx, n.volume, true); err != nil {
			errs = append(errs, fmt.Errorf("volume %s: %w", n.volume, err))
		}
		n.volume = ""
	}
	if c.network != nil {
		if err := c.network.Remove(ctx); err != nil {
			errs = append(errs, fmt.Errorf("network: %w", err))
		}
		c.network = nil
	}
	if c.docker != nil {
		_ = c.docker.Close()
		c.docker = nil
	}
	return errors.Join(errs...)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// AwaitInSync waits until every partition of every topic (internal ones included) has all its
// replicas in sync and a leader: the cluster has healed from a fault.
func (c *Cluster) AwaitInSync(ctx context.Context) error {
	last := "no metadata yet"
	for {
		md, err := c.metadata(ctx, true)
		if err == nil {
			if last = underReplicated(md); last == "" {
				return nil
			}
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("await in-sync replicas: %w (last: %s)", ctx.Err(), last)
		case <-time.After(200 * time.Millisecond): // polling the cluster: the ISR has no signal
		}
	}
}

// underReplicated describes the first partition of md without a leader or with a replica out of
// sync, "" when there is none.
func underReplicated(md kadm.Metadata) string {
	for _, t := range md.Topics.Sorted() {
		if t.Err != nil {
			return fmt.Sprintf("topic %s: %v", t.Topic, t.Err)
		}
		for _, p := range t.Partitions.Sorted() {
			if p.Err != nil || p.Leader < 0 || len(p.ISR) < len(p.Replicas) {
				return fmt.Sprintf("%s/%d: leader %d, replicas %v, in sync %v (%v)", t.Topic, p.Partition, p.Leader,
					p.Replicas, p.ISR, p.Err)
			}
		}
	}
	return ""
}
