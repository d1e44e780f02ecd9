package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// CanCut returns why Cut cannot work on this machine, nil when it can: it needs root, nsenter and
// iptables, and a Docker daemon on this machine's kernel (not in a VM, as Docker Desktop's is: its
// containers' processes are not visible here).
func CanCut() error {
	if os.Geteuid() != 0 {
		return errors.New("cut needs root (nsenter into a container's network namespace)")
	}
	for _, tool := range []string{"nsenter", "iptables"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("cut needs %s: %w", tool, err)
		}
	}
	return nil
}

// Cut partitions the container named ctr (a client on the cluster's network, such as a connector
// replica) from node n, both ways, and returns the function that heals the cut. Packets between
// the container and the node's address on the network are dropped by iptables rules in the
// container's network namespace (entered with nsenter): its open connections to the node hang, as
// in a real partition, while the node keeps serving everyone else. It needs root, nsenter and
// iptables on this machine; the rules go with the container when it is removed.
func (c *Cluster) Cut(ctx context.Context, ctr string, n *Node) (heal func(context.Context) error, err error) {
	ip, err := n.IP(ctx)
	if err != nil {
		return nil, err
	}
	info, err := c.docker.ContainerInspect(ctx, ctr)
	if err != nil {
		return nil, fmt.Errorf("cut %s from node %d: %w", ctr, n.ID, err)
	}
	if info.State == nil || info.State.Pid == 0 {
		return nil, fmt.Errorf("cut %s from node %d: the container does not run", ctr, n.ID)
	}
	pid := info.State.Pid
	rules := [][]string{{"INPUT", "-s", ip, "-j", "DROP"}, {"OUTPUT", "-d", ip, "-j", "DROP"}}
	for _, r := range rules {
		if err := nsIptables(ctx, pid, "-I", r); err != nil {
			return nil, fmt.Errorf("cut %s from node %d (%s): %w", ctr, n.ID, ip, err)
		}
	}
	return func(ctx context.Context) error {
		for _, r := range rules {
			if err := nsIptables(ctx, pid, "-D", r); err != nil {
				return fmt.Errorf("heal the cut of %s from node %d (%s): %w", ctr, n.ID, ip, err)
			}
		}
		return nil
	}, nil
}

// nsIptables runs iptables op rule in the network namespace of process pid.
func nsIptables(ctx context.Context, pid int, op string, rule []string) error {
	args := append([]string{"-t", strconv.Itoa(pid), "-n", "iptables", "-w", op}, rule...)
	if out, err := exec.CommandContext(ctx, "nsenter", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("nsenter %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
