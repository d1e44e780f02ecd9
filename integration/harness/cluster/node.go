package cluster

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	dnetwork "github.com/docker/docker/api/types/network"
	"github.com/docker/docker/pkg/stdcopy"
	"github.com/testcontainers/testcontainers-go"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Node is one broker+controller of a cluster: a container with a named volume for its data and a
// fixed loopback port for clients, both kept across Kill and Start.
type Node struct {
	ID        int
	c         *Cluster
	name      string
	volume    string
	hostPort  int
	container testcontainers.Container
}

// Addr is the node's client address on this machine.
func (n *Node) Addr() string { return fmt.Sprintf("127.0.0.1:%d", n.hostPort) }

// Name is the node's container name.
func (n *Node) Name() string { return n.name }

func (n *Node) id() string { return n.container.GetContainerID() }

// Kill sends SIGKILL to the node and waits until its container has stopped.
func (n *Node) Kill(ctx context.Context) error {
	if err := n.c.docker.ContainerKill(ctx, n.id(), "KILL"); err != nil {
		return fmt.Errorf("kill node %d: %w", n.ID, err)
	}
	return n.awaitStopped(ctx)
}

// Stop shuts the node down gracefully (SIGTERM; SIGKILL after timeout), as a rolling restart does.
func (n *Node) Stop(ctx context.Context, timeout time.Duration) error {
	secs := int(timeout.Seconds())
	if err := n.c.docker.ContainerStop(ctx, n.id(), container.StopOptions{Timeout: &secs}); err != nil {
		return fmt.Errorf("stop node %d: %w", n.ID, err)
	}
	return n.awaitStopped(ctx)
}

func (n *Node) awaitStopped(ctx context.Context) error {
	waitC, errC := n.c.docker.ContainerWait(ctx, n.id(), container.WaitConditionNotRunning)
	select {
	case <-waitC:
		return nil
	case err := <-errC:
		return fmt.Errorf("node %d: wait for the stop: %w", n.ID, err)
	}
}

// Start starts a stopped node again on its volume and port; it does not wait for the broker.
func (n *Node) Start(ctx context.Context) error {
	if err := n.c.docker.ContainerStart(ctx, n.id(), container.StartOptions{}); err != nil {
		return fmt.Errorf("start node %d: %w", n.ID, err)
	}
	return nil
}

// Pause freezes every process of the node (the cgroup freezer): it keeps its connections and
// answers nothing, as in a long GC pause or a VM stall.
func (n *Node) Pause(ctx context.Context) error {
	if err := n.c.docker.ContainerPause(ctx, n.id()); err != nil {
		return fmt.Errorf("pause node %d: %w", n.ID, err)
	}
	return nil
}

// Unpause lets a paused node run on.
func (n *Node) Unpause(ctx context.Context) error {
	if err := n.c.docker.ContainerUnpause(ctx, n.id()); err != nil {
		return fmt.Errorf("unpause node %d: %w", n.ID, err)
	}
	return nil
}

// Disconnect removes the node from the cluster's network: it can reach neither the other nodes
// nor be reached by clients (its published port goes with the network) until Reconnect.
func (n *Node) Disconnect(ctx context.Context) error {
	if err := n.c.docker.NetworkDisconnect(ctx, n.c.network.ID, n.id(), true); err != nil {
		return fmt.Errorf("disconnect node %d: %w", n.ID, err)
	}
	return nil
}

// Reconnect attaches the node to the cluster's network again under its host name.
func (n *Node) Reconnect(ctx context.Context) error {
	err := n.c.docker.NetworkConnect(ctx, n.c.network.ID, n.id(), &dnetwork.EndpointSettings{Aliases: []string{alias(n.ID)}})
	if err != nil {
		return fmt.Errorf("reconnect node %d: %w", n.ID, err)
	}
	return nil
}

// Running reports whether the node's container runs (a paused one does).
func (n *Node) Running(ctx context.Context) bool {
	info, err := n.c.docker.ContainerInspect(ctx, n.id())
	return err == nil && info.State != nil && info.State.Running
}

// LogTail returns the last lines lines of the node's output (the broker's log), for a failure.
func (n *Node) LogTail(ctx context.Context, lines int) string {
	if n.container == nil {
		return ""
	}
	rc, err := n.c.docker.ContainerLogs(ctx, n.id(), container.LogsOptions{ShowStdout: true, ShowStderr: true,
		Tail: fmt.Sprint(lines)})
	if err != nil {
		return fmt.Sprintf("(no log of node %d: %v)", n.ID, err)
	}
	defer rc.Close()
	var b strings.Builder
	_, _ = stdcopy.StdCopy(&b, &b, io.LimitReader(rc, 1<<20))
	return fmt.Sprintf("node %d, last %d lines:\n%s", n.ID, lines, b.String())
}

// AwaitReady waits until the node itself answers a metadata request that lists it among the
// brokers: its JVM runs, it registered and was unfenced. (Other nodes' metadata keeps listing a
// killed node until the controller fences it, and forever when the quorum is lost.)
func (n *Node) AwaitReady(ctx context.Context) error {
	var last error
	for {
		if last = n.ready(ctx); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("node %d not ready: %w (last: %v)", n.ID, ctx.Err(), last)
		case <-time.After(200 * time.Millisecond): // polling the node: readiness has no signal
		}
	}
}

func (n *Node) ready(ctx context.Context) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(n.Addr()))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := cl.SeedBrokers()[0].Request(ctx, kmsg.NewPtrMetadataRequest())
	if err != nil {
		return err
	}
	md, ok := resp.(*kmsg.MetadataResponse)
	if !ok {
		return fmt.Errorf("metadata answered with %T", resp)
	}
	for _, b := range md.Brokers {
		if int(b.NodeID) == n.ID {
			return nil
		}
	}
	return fmt.Errorf("its metadata lists no broker %d", n.ID)
}

// IP is the node's address on the cluster's network (it may change when the node is reconnected).
func (n *Node) IP(ctx context.Context) (string, error) {
	info, err := n.c.docker.ContainerInspect(ctx, n.id())
	if err != nil {
		return "", fmt.Errorf("node %d: %w", n.ID, err)
	}
	if info.NetworkSettings != nil {
		if ep, ok := info.NetworkSettings.Networks[n.c.network.Name]; ok && ep.IPAddress != "" {
			return ep.IPAddress, nil
		}
	}
	return "", fmt.Errorf("node %d has no address on network %s", n.ID, n.c.network.Name)
}
