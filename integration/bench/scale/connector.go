package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/signing"
)

// binary is a connector build a run takes partitions over with.
type binary struct {
	Label string            // before, after, or connector when alone
	Path  string            // the executable
	Env   map[string]string // variables only this build gets (PAYSESSION_SESSIONS_HORIZON)
}

// buildConnector builds ./cmd/connector of this module into dir.
func buildConnector(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "connector")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/paysession/paysession/cmd/connector")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/connector: %w: %s", err, out)
	}
	return bin, nil
}

// writeKey writes a partner key pair into dir and returns the private
// key's path: the connector needs one to start, and signs nothing here.
func writeKey(dir string) (string, error) {
	k, err := signing.GenerateKey(2048)
	if err != nil {
		return "", err
	}
	priv := filepath.Join(dir, "partner.pem")
	return priv, signing.WriteKeyPair(k, priv, filepath.Join(dir, "partner.pub.pem"))
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	return addr, l.Close()
}

// proc is a connector process (connector run) of this program.
type proc struct {
	cmd     *exec.Cmd
	started time.Time
	ops     string        // http://host:port of /metrics and /readyz
	done    chan struct{} // closed once the process was waited for
	err     error         // its exit, valid after done
}

// runEnv is the environment of a connector process: this process's
// environment without its PAYSESSION_* variables, plus vars.
func runEnv(vars map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PAYSESSION_") {
			env = append(env, kv)
		}
	}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+vars[k])
	}
	return env
}

// startProc starts `path run` with vars, its output to logs; the process
// is killed if this one dies.
func startProc(path string, vars map[string]string, logs io.Writer) (*proc, error) {
	ops, ok := vars["PAYSESSION_METRICS_LISTEN_ADDR"]
	if !ok {
		return nil, errors.New("PAYSESSION_METRICS_LISTEN_ADDR not set")
	}
	cmd := exec.Command(path, "run")
	cmd.Env = runEnv(vars)
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	p := &proc{cmd: cmd, ops: "http://" + ops, done: make(chan struct{})}
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	go func() {
		defer close(p.done)
		p.err = cmd.Wait()
	}()
	return p, nil
}

// stopGrace bounds a connector's graceful stop before SIGKILL.
const stopGrace = 30 * time.Second

// stop sends SIGTERM and waits for the exit, SIGKILL after stopGrace.
func (p *proc) stop() error {
	select {
	case <-p.done:
		return p.exitErr()
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return p.exitErr()
	case <-time.After(stopGrace):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("connector did not stop within %s of SIGTERM: killed", stopGrace)
	}
}

func (p *proc) exitErr() error {
	if p.err != nil {
		return fmt.Errorf("connector: %w", p.err)
	}
	return nil
}

// readiness is when a starting connector became ready, from its start.
type readiness struct {
	writer time.Duration // the session-writer check passed (paysession_ready)
	all    time.Duration // /readyz answered 200
}

// waitReady polls the connector every pollEvery until /readyz answers
// 200, noting when its session-writer check passed first. It fails when
// the process exits or timeout passes.
func (p *proc) waitReady(ctx context.Context, timeout time.Duration) (readiness, error) {
	const pollEvery = 100 * time.Millisecond
	hc := &http.Client{Timeout: 5 * time.Second}
	deadline := time.After(timeout)
	var r readiness
	for {
		select {
		case <-p.done:
			return r, fmt.Errorf("connector exited before it was ready: %v", p.err)
		case <-ctx.Done():
			return r, ctx.Err()
		case <-deadline:
			return r, fmt.Errorf("connector not ready within %s", timeout)
		case <-time.After(pollEvery):
		}
		if r.writer == 0 {
			if m, err := scrape(ctx, hc, p.ops); err == nil && m[`paysession_ready{check="session-writer"}`] == 1 {
				r.writer = time.Since(p.started)
			}
		}
		if status(ctx, hc, p.ops+"/readyz") == http.StatusOK {
			r.all = time.Since(p.started)
			if r.writer == 0 {
				r.writer = r.all
			}
			return r, nil
		}
	}
}

// status returns the status code of a GET of url, 0 when none came.
func status(ctx context.Context, hc *http.Client, url string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// scrape reads the connector's /metrics: series (name with its labels, as
// written) → value. Histograms and summaries appear as their _sum, _count
// and _bucket series.
func scrape(ctx context.Context, hc *http.Client, ops string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ops+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("/metrics: %s", resp.Status)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return parseMetrics(string(body)), nil
}

// parseMetrics reads the Prometheus text format's samples; it skips
// comments and lines it cannot read.
func parseMetrics(text string) map[string]float64 {
	out := map[string]float64{}
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		series, value := line[:i], line[i+1:]
		if j := strings.LastIndexByte(series, ' '); j >= 0 && !strings.Contains(series[j:], "}") {
			// a timestamp follows the value
			series, value = series[:j], series[j+1:]
		}
		v, err := strconv.ParseFloat(value, 64)
		if err == nil {
			out[series] = v
		}
	}
	return out
}

// procMemory returns VmRSS and VmHWM (the peak RSS) of process pid, in
// bytes.
func procMemory(pid int) (rss, peak int64, err error) {
	m, err := harness.ProcessMemory(strconv.Itoa(pid), "VmRSS", "VmHWM")
	if err != nil {
		return 0, 0, err
	}
	return m[0], m[1], nil
}
