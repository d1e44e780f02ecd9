package faults_test

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paysession/paysession/integration/harness"
)

// binaries are cmd/connector and cmd/paysim, built once per test binary
// run into a temporary directory that TestMain removes.
var binaries struct {
	once sync.Once
	dir  string
	err  error
}

// binary returns the path of a main package of this module built once,
// e.g. binary(t, "connector") for ./cmd/connector.
func binary(t testing.TB, name string) string {
	t.Helper()
	binaries.once.Do(func() {
		if binaries.dir, binaries.err = os.MkdirTemp("", "paysession-faults-bin-"); binaries.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binaries.dir+string(os.PathSeparator),
			"github.com/paysession/paysession/cmd/connector", "github.com/paysession/paysession/cmd/paysim")
		out, err := cmd.CombinedOutput()
		if err != nil {
			binaries.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if binaries.err != nil {
		t.Fatal(binaries.err)
	}
	return filepath.Join(binaries.dir, name)
}

// Process is one child process (connector or paysim) in its own process
// group, its output in a log file under t.TempDir(). Start it again after
// Kill with Restart: same command line, environment and log file.
type Process struct {
	t    testing.TB
	name string
	args []string
	env  []string
	log  string

	mu    sync.Mutex
	cmd   *exec.Cmd
	done  chan struct{}
	runs  int
	kills int
}

// StartProcess starts path with args and env (added to this process's
// environment) and stops it when t ends: SIGTERM, then SIGKILL after 15 s.
// When t failed, the tail of its log is printed.
func StartProcess(t testing.TB, name, path string, args, env []string) *Process {
	t.Helper()
	p := &Process{t: t, name: name, args: append([]string{path}, args...), env: env,
		log: filepath.Join(t.TempDir(), name+".log")}
	t.Cleanup(func() {
		if err := p.Stop(15 * time.Second); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if t.Failed() {
			t.Logf("--- last lines of %s (%s) ---\n%s", name, p.log, p.Tail(40))
		}
	})
	p.Restart()
	return p
}

// Restart starts the process again (it must not be running).
func (p *Process) Restart() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil && !isDone(p.done) {
		p.t.Fatalf("%s: restart while running", p.name)
	}
	logf, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		p.t.Fatal(err)
	}
	defer logf.Close() // the child holds its own descriptor
	p.runs++
	fmt.Fprintf(logf, "### faults: start %d of %s at %s\n", p.runs, p.name, time.Now().UTC().Format(time.RFC3339Nano))
	cmd := exec.Command(p.args[0], p.args[1:]...)
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("start %s: %v", p.name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	p.cmd, p.done = cmd, done
}

// Kill sends SIGKILL to the process group and returns once the process
// has exited.
func (p *Process) Kill() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || isDone(p.done) {
		p.t.Fatalf("%s: kill while not running (exited early? see %s)", p.name, p.log)
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
	p.kills++
}

// Kills is how many times Kill ended the process.
func (p *Process) Kills() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.kills
}

// Running reports whether the process has not exited.
func (p *Process) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd != nil && !isDone(p.done)
}

// Stop ends the process group gracefully (SIGTERM), or with SIGKILL when
// it is still alive after grace. Stopping a stopped process does nothing.
func (p *Process) Stop(grace time.Duration) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || isDone(p.done) {
		return nil
	}
	err := harness.StopProcessGroup(p.cmd.Process.Pid, grace)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		err = errors.Join(err, errors.New("not reaped 10s after stop"))
	}
	return err
}

// Log is the path of the process's log file (every run appends to it).
func (p *Process) Log() string { return p.log }

// Tail returns the last n lines of the log.
func (p *Process) Tail(n int) string {
	b, _ := os.ReadFile(p.log)
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

func isDone(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// freeAddr returns a free loopback address for a child to listen on.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
