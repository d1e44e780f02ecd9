package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/paysim"
)

// sandboxProc is the sandbox as its own process: cmd/paysim built into the
// bench's temp dir and run in dev mode with the bench's keys. Out of the
// bench's process, its sessions, goroutines and garbage are not in the
// bench's RSS and CPU, which are then the connector's and the bench's
// Kafka clients'.
type sandboxProc struct {
	cmd  *exec.Cmd
	url  string        // http://127.0.0.1:port
	done chan struct{} // closed when the process was waited for
	err  error         // its exit, valid after done
	hc   *http.Client
}

// startSandboxProc builds ./cmd/paysim into dir and starts it with the dev
// keys in dir (the partner key signs the connector's calls, the service key
// the webhooks), project id project and no webhooks (the webhook phase posts
// its own). It returns once the sandbox listens.
func startSandboxProc(ctx context.Context, dir, project string) (*sandboxProc, error) {
	bin := filepath.Join(dir, "paysim")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/paysession/paysession/cmd/paysim")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build paysim: %w: %s", err, out)
	}
	cmd := exec.Command(bin, "-dev-keys", dir, "-project", project, "-listen", "127.0.0.1:0", "-log-level", "info")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlive the bench
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start paysim: %w", err)
	}
	s := &sandboxProc{cmd: cmd, done: make(chan struct{}), hc: &http.Client{Timeout: 10 * time.Second}}
	addr := make(chan string, 1)
	go func() {
		defer close(s.done)
		s.err = errors.Join(forwardLog(stderr, addr), cmd.Wait())
	}()
	select {
	case a := <-addr:
		s.url = "http://" + a
	case <-s.done:
		return nil, fmt.Errorf("paysim exited before listening: %v", s.err)
	case <-ctx.Done():
		s.close()
		return nil, ctx.Err()
	case <-time.After(30 * time.Second):
		s.close()
		return nil, errors.New("paysim did not listen within 30s")
	}
	return s, nil
}

// forwardLog reads paysim's JSON log: it sends the address of the
// "paysim listening" line to addr and copies warnings and errors to stderr.
func forwardLog(r io.Reader, addr chan<- string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var line struct {
			Level string `json:"level"`
			Msg   string `json:"msg"`
			Addr  string `json:"addr"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			fmt.Fprintln(os.Stderr, "paysim:", sc.Text())
			continue
		}
		switch {
		case line.Msg == "paysim listening" && line.Addr != "":
			select {
			case addr <- line.Addr:
			default:
			}
		case line.Level == "WARN" || line.Level == "ERROR":
			fmt.Fprintln(os.Stderr, "paysim:", sc.Text())
		}
	}
	return sc.Err()
}

// admin posts body to the sandbox's admin endpoint path.
func (s *sandboxProc) admin(ctx context.Context, path string, body any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.hc.Do(req)
	if err != nil {
		return fmt.Errorf("paysim %s: %w", path, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("paysim %s: %s: %s", path, resp.Status, msg)
	}
	return nil
}

// reset forgets every session, key and fault of the sandbox.
func (s *sandboxProc) reset(ctx context.Context) error {
	return s.admin(ctx, "/admin/reset", struct{}{})
}

// setFaults replaces the sandbox's fault knobs.
func (s *sandboxProc) setFaults(ctx context.Context, f paysim.Faults) error {
	return s.admin(ctx, "/admin/faults", f)
}

// cpuTime is the sandbox process's user+system CPU time so far.
func (s *sandboxProc) cpuTime() (time.Duration, error) {
	return harness.ProcessCPU(strconv.Itoa(s.cmd.Process.Pid))
}

// close stops the sandbox: SIGTERM (graceful shutdown), SIGKILL after 10s.
func (s *sandboxProc) close() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}
