package harness

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// jvmArgs returns the JVM command line of the broker. C1-only compilation and the serial collector
// keep a 2-core machine responsive while the broker starts and serves test-sized traffic.
func (b *Broker) jvmArgs() []string {
	args := []string{
		"-Xms" + b.cfg.InitialHeap, "-Xmx" + b.cfg.Heap,
		"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Djava.awt.headless=true",
		"-Dlog4j2.configurationFile=" + filepath.Join(b.cfg.Dir, log4jFile),
	}
	args = append(args, b.cfg.JVMArgs...)
	return append(args, "-cp", filepath.Join(b.cfg.LibsDir, "*"),
		"kafka.Kafka", filepath.Join(b.cfg.Dir, serverPropsFile))
}

// start launches the JVM in its own process group with its output appended to broker.log, then
// waits for readiness. On failure it kills what it started.
func (b *Broker) start(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.proc != nil && !b.proc.exited() {
		return errors.New("start broker: already running")
	}
	logf, err := os.OpenFile(b.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("start broker: %w", err)
	}
	fmt.Fprintf(logf, "### harness: starting broker at %s on %s\n", time.Now().UTC().Format(time.RFC3339), b.Addr())
	cmd := exec.Command(b.cfg.Java, b.jvmArgs()...)
	cmd.Dir = b.cfg.Dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = groupAttr(b.cfg.Detached)
	err = cmd.Start()
	logf.Close() // the child holds its own descriptor
	if err != nil {
		return fmt.Errorf("start broker: %w", err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	b.proc = p
	b.cfg.Logger.Info("broker starting", slog.Int("pid", cmd.Process.Pid), slog.String("addr", b.Addr()),
		slog.String("log", b.LogPath()))
	if err := b.waitReady(ctx, p); err != nil {
		_ = b.stopLocked(syscall.SIGKILL)
		return fmt.Errorf("start broker on %s: %w\n--- last lines of %s ---\n%s", b.Addr(), err, b.LogPath(),
			readTail(b.LogPath(), 40))
	}
	b.cfg.Logger.Info("broker ready", slog.String("addr", b.Addr()))
	return nil
}

// waitReady polls the broker for metadata until it lists itself (a KRaft broker is listed only
// once it is registered and unfenced), the process exits, or StartTimeout passes.
func (b *Broker) waitReady(ctx context.Context, p *process) error {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.StartTimeout)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.DialTimeout(time.Second),
		kgo.RetryTimeout(time.Second))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		attempt, done := context.WithTimeout(ctx, 3*time.Second)
		md, err := adm.BrokerMetadata(attempt)
		done()
		switch {
		case err != nil:
			last = err
		case !slices.ContainsFunc(md.Brokers, func(m kadm.BrokerDetail) bool { return int(m.NodeID) == b.cfg.NodeID }):
			last = fmt.Errorf("metadata does not list node %d yet", b.cfg.NodeID)
		default:
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("broker exited before it was ready: %v", p.err)
		case <-ctx.Done():
			return fmt.Errorf("not ready within %v: %w (last attempt: %v)", b.cfg.StartTimeout, ctx.Err(), last)
		case <-tick.C:
		}
	}
}
