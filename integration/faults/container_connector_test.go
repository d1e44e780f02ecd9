package faults_test

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paysession/paysession/integration/harness/cluster"
)

// connectorImage is the scratch image of a connector replica in a
// container: cmd/connector built statically and the CA certificates.
const connectorImage = "paysession-connector-scratch:chaos"

// opsPort and webhookPort are the container replica's listeners inside
// its container.
const (
	opsPort     = 9100
	webhookPort = 8080
)

var scratchConnector struct {
	once sync.Once
	err  error
}

// buildConnectorImage builds cmd/connector with CGO_ENABLED=0 (a static
// binary: a scratch image has no C library) and connectorImage from it,
// once per test binary run; the image is removed when t ends.
func buildConnectorImage(t testing.TB, run string) {
	t.Helper()
	scratchConnector.once.Do(func() {
		dir := filepath.Dir(binary(t, "connector"))
		bin := filepath.Join(dir, "connector-static")
		cmd := exec.Command("go", "build", "-o", bin, "github.com/paysession/paysession/cmd/connector")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			scratchConnector.err = fmt.Errorf("static go build: %w\n%s", err, out)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		scratchConnector.err = cluster.BuildScratchImage(ctx, connectorImage, bin, run)
	})
	if scratchConnector.err != nil {
		t.Fatal(scratchConnector.err)
	}
}

// StartContainerConnector starts `connector run` with env in a container
// of connectorImage named name on c's network, and waits until it is
// ready. Its brokers are the nodes' addresses on that network, so that
// c.Cut can partition it from one node; its API base URL is a forwarder
// to env's (the sandbox listens on loopback) on this machine's address on
// the network; its /readyz is published on a loopback port (OpsURL). Its
// key files are mounted read-only at their paths. The process is the
// docker CLI attached to the container (Stop's SIGTERM reaches the
// connector; its log is the container's output); the container is removed
// when t ends.
func StartContainerConnector(t testing.TB, env map[string]string, c *cluster.Cluster, name string) *Connector {
	t.Helper()
	buildConnectorImage(t, c.RunID())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	gw, err := c.Gateway(ctx)
	if err != nil {
		t.Fatal(err)
	}
	env = maps.Clone(env)
	env["PAYSESSION_KAFKA_BROKERS"] = strings.Join(c.InternalBrokers(), ",")
	env["PAYSESSION_API_BASE_URL"] = "http://" + forward(t, gw, strings.TrimPrefix(env["PAYSESSION_API_BASE_URL"], "http://"))
	env["PAYSESSION_METRICS_LISTEN_ADDR"] = fmt.Sprintf(":%d", opsPort)
	env["PAYSESSION_WEBHOOK_LISTEN_ADDR"] = fmt.Sprintf(":%d", webhookPort)
	// The brokers and the sandbox are no longer on loopback, but on the
	// cluster's network, which only this machine's containers reach.
	env["PAYSESSION_KAFKA_ALLOW_PLAINTEXT"] = "true"
	env["PAYSESSION_API_ALLOW_INSECURE_HTTP"] = "true"
	ops := freeAddr(t)
	args := []string{"run", "--rm", "--name", name, "--network", c.Network(), "-p", fmt.Sprintf("%s:%d", ops, opsPort)}
	for k, v := range cluster.Labels(c.RunID()) {
		args = append(args, "--label", k+"="+v)
	}
	mounted := map[string]bool{}
	for _, k := range []string{"PAYSESSION_API_PRIVATE_KEY_FILE", "PAYSESSION_API_SERVICE_PUBLIC_KEY_FILES"} {
		if d := filepath.Dir(env[k]); env[k] != "" && !mounted[d] {
			mounted[d] = true
			args = append(args, "-v", d+":"+d+":ro")
		}
	}
	vars := make([]string, 0, len(env))
	for k, v := range env {
		vars = append(vars, k+"="+v)
		args = append(args, "-e", k) // the value from the docker CLI's environment, not its command line
	}
	sort.Strings(vars)
	args = append(args, connectorImage, "run")
	t.Cleanup(func() { // after the process's own cleanup (SIGTERM): a container left by a SIGKILL goes too
		_ = exec.Command("docker", "rm", "-f", "-v", name).Run()
	})
	docker, err := exec.LookPath("docker")
	if err != nil {
		t.Fatal(err)
	}
	conn := &Connector{Env: env, OpsURL: "http://" + ops, WebhookURL: ""}
	conn.Process = StartProcess(t, name, docker, args, vars)
	conn.AwaitReady(t)
	return conn
}

// forward listens on host (an address of this machine) and copies every
// connection to and from target until t ends (then it closes them all);
// it returns its address.
func forward(t testing.TB, host, target string) string {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var open []net.Conn
	closed := false
	keep := func(c net.Conn) bool {
		mu.Lock()
		defer mu.Unlock()
		if closed {
			_ = c.Close()
			return false
		}
		open = append(open, c)
		return true
	}
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		defer mu.Unlock()
		closed = true
		for _, c := range open {
			_ = c.Close()
		}
	})
	go func() {
		for {
			in, err := l.Accept()
			if err != nil || !keep(in) {
				return
			}
			go func() {
				out, err := net.DialTimeout("tcp", target, 5*time.Second)
				if err != nil || !keep(out) {
					_ = in.Close()
					return
				}
				go func() { _, _ = io.Copy(out, in); _ = out.Close() }()
				_, _ = io.Copy(in, out)
				_ = in.Close()
			}()
		}
	}()
	return l.Addr().String()
}
