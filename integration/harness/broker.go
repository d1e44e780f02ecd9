package harness

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// BrokerConfig configures a local single-node Kafka broker.
type BrokerConfig struct {
	// Dir holds everything of the broker: server.properties, log4j2.properties, broker.log and the
	// data folder. Required. A directory that already holds a formatted broker is reused.
	Dir string
	// LibsDir is the folder of broker jars. Default: EnsureJars (the Maven-fetched cache).
	LibsDir string
	// Java is the java executable. Default: $JAVA_HOME/bin/java, else java from PATH.
	Java string
	// Heap is the maximum heap (-Xmx). Default "512m".
	Heap string
	// InitialHeap is the heap the JVM starts with (-Xms). Default "128m": the suite's brokers stay
	// small. The serial collector sizes the young generation from it (a third) and resizes it only
	// at a full collection, so it also sets how often a busy broker pauses for a young collection.
	InitialHeap string
	// JVMArgs are added after the default JVM flags (a later flag wins).
	JVMArgs []string
	// Properties override or extend the broker's server.properties (see brokerProperties).
	Properties map[string]string
	// StartTimeout bounds the wait for readiness (metadata answered). Default 2 minutes.
	StartTimeout time.Duration
	// StopTimeout is how long Stop waits after SIGTERM before SIGKILL. Default 30 seconds.
	StopTimeout time.Duration
	// Detached lets the broker outlive the process that started it (kafkad up). Otherwise the
	// broker is killed when its parent dies.
	Detached bool
	// Logger receives the launcher's progress. Default: discarded.
	Logger *slog.Logger
	// Join, when set, makes this a broker-only node of Join's cluster: it registers with Join's
	// controller and shares its cluster id, so topics can have replicas on both (fault tests that
	// need a second replica). Join must have been started first.
	Join *Broker
	// NodeID is the node id. Default 1, or 2 with Join; it must differ from Join's.
	NodeID int
}

// Validate reports every problem of the configuration at once.
func (c BrokerConfig) Validate() error {
	var errs []error
	if c.Dir == "" {
		errs = append(errs, errors.New("missing Dir: the broker directory is required"))
	}
	if c.StartTimeout < 0 {
		errs = append(errs, errors.New("negative StartTimeout"))
	}
	if c.StopTimeout < 0 {
		errs = append(errs, errors.New("negative StopTimeout"))
	}
	if c.Join != nil && c.NodeID == c.Join.cfg.NodeID {
		errs = append(errs, fmt.Errorf("NodeID %d is the node id of the broker it joins", c.NodeID))
	}
	if strings.ContainsAny(c.Heap, " \t") {
		errs = append(errs, fmt.Errorf("invalid Heap %q: want a JVM size such as 512m", c.Heap))
	}
	if strings.ContainsAny(c.InitialHeap, " \t") {
		errs = append(errs, fmt.Errorf("invalid InitialHeap %q: want a JVM size such as 128m", c.InitialHeap))
	}
	return errors.Join(errs...)
}

func (c *BrokerConfig) setDefaults() {
	if c.Heap == "" {
		c.Heap = "512m"
	}
	if c.InitialHeap == "" {
		c.InitialHeap = "128m"
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = 2 * time.Minute
	}
	if c.StopTimeout == 0 {
		c.StopTimeout = 30 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.NodeID == 0 {
		c.NodeID = 1
		if c.Join != nil {
			c.NodeID = c.Join.cfg.NodeID + 1
		}
	}
}

// Broker is a running (or stopped) local Kafka broker. Its ports and directory stay the same for
// its whole life, across Kill and Restart.
type Broker struct {
	cfg            BrokerConfig
	port, ctrlPort int

	mu   sync.Mutex
	proc *process
}

// process is one run of the broker's JVM.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the JVM has exited and been reaped
	err  error         // the exit status, valid once done is closed
}

// StartBroker formats cfg.Dir (unless it already holds a broker), starts the broker and returns
// once it answers metadata requests. On failure the error carries the tail of the broker's log and
// no process is left running.
func StartBroker(ctx context.Context, cfg BrokerConfig) (*Broker, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("start broker: %w", err)
	}
	var err error
	if cfg.Dir, err = filepath.Abs(cfg.Dir); err != nil {
		return nil, fmt.Errorf("start broker: %w", err)
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("start broker: %w", err)
	}
	if cfg.LibsDir == "" {
		if cfg.LibsDir, err = EnsureJars(ctx, cfg.Logger); err != nil {
			return nil, fmt.Errorf("start broker: %w", err)
		}
	}
	if cfg.Java == "" {
		if cfg.Java, err = javaPath(); err != nil {
			return nil, fmt.Errorf("start broker: %w", err)
		}
	}
	b := &Broker{cfg: cfg}
	// A port found free can be taken by someone else before the JVM binds it: try fresh ports.
	for attempt := 1; ; attempt++ {
		err = b.setup(ctx)
		if err == nil {
			err = b.start(ctx)
		}
		if err == nil {
			return b, nil
		}
		if attempt == 3 || !strings.Contains(err.Error(), "Address already in use") {
			return nil, err
		}
		cfg.Logger.Warn("broker port taken, retrying on new ports", slog.Int("attempt", attempt))
		if err := os.RemoveAll(filepath.Join(cfg.Dir, dataDir)); err != nil {
			return nil, fmt.Errorf("start broker: %w", err)
		}
	}
}

// setup picks the ports and writes the configuration files, then formats the storage.
func (b *Broker) setup(ctx context.Context) error {
	ports, err := FreePorts(2)
	if err != nil {
		return fmt.Errorf("start broker: %w", err)
	}
	b.port, b.ctrlPort = ports[0], ports[1]
	props := brokerProperties(b.cfg.Dir, b.port, b.ctrlPort, b.cfg.Properties)
	clusterID := ""
	if j := b.cfg.Join; j != nil {
		joinProperties(props, b.cfg.NodeID, b.port, j.cfg.NodeID, j.ctrlPort)
		if clusterID, err = readClusterID(j.cfg.Dir); err != nil {
			return fmt.Errorf("start broker: %w", err)
		}
	}
	if err := writeProperties(filepath.Join(b.cfg.Dir, serverPropsFile), props); err != nil {
		return fmt.Errorf("start broker: %w", err)
	}
	if err := os.WriteFile(filepath.Join(b.cfg.Dir, log4jFile), []byte(log4jConfig), 0o644); err != nil {
		return fmt.Errorf("start broker: %w", err)
	}
	if err := formatStorage(ctx, b.cfg.Java, b.cfg.LibsDir, b.cfg.Dir, clusterID); err != nil {
		return fmt.Errorf("start broker: %w", err)
	}
	return nil
}

// Addr returns the bootstrap address (host:port) of the PLAINTEXT listener.
func (b *Broker) Addr() string { return fmt.Sprintf("127.0.0.1:%d", b.port) }

// Dir returns the broker's directory.
func (b *Broker) Dir() string { return b.cfg.Dir }

// LogPath returns the broker's log file; every run of the broker appends to it.
func (b *Broker) LogPath() string { return filepath.Join(b.cfg.Dir, logFile) }

// Pid returns the process id (and process group id) of the current JVM, 0 when none was started.
func (b *Broker) Pid() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.proc == nil {
		return 0
	}
	return b.proc.cmd.Process.Pid
}

// Running reports whether the broker's JVM is alive.
func (b *Broker) Running() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.proc != nil && !b.proc.exited()
}

// Stop sends SIGTERM to the broker's process group, SIGKILL if it has not exited within
// StopTimeout, and returns once the JVM is reaped. Stopping a stopped broker does nothing.
func (b *Broker) Stop() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stopLocked(syscall.SIGTERM)
}

// Kill sends SIGKILL to the broker's process group and returns once the JVM is reaped: a crash,
// for fault tests. The data directory stays, ready for Restart.
func (b *Broker) Kill() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stopLocked(syscall.SIGKILL)
}

// Restart stops the broker if it runs, then starts it again on the same directory, data and ports,
// returning once it answers metadata requests.
func (b *Broker) Restart(ctx context.Context) error {
	if err := b.Stop(); err != nil {
		return err
	}
	return b.start(ctx)
}

func (b *Broker) stopLocked(sig syscall.Signal) error {
	p := b.proc
	if p == nil || p.exited() {
		return nil
	}
	pid := p.cmd.Process.Pid
	if err := signalGroup(pid, sig); err != nil {
		return fmt.Errorf("stop broker: %w", err)
	}
	if sig != syscall.SIGKILL {
		select {
		case <-p.done:
		case <-time.After(b.cfg.StopTimeout):
			b.cfg.Logger.Warn("broker ignored SIGTERM, killing", slog.Int("pid", pid))
		}
	}
	// SIGKILL the whole group even after the leader exited: nothing of it may outlive Stop.
	if err := signalGroup(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("stop broker: %w", err)
	}
	<-p.done
	b.cfg.Logger.Info("broker stopped", slog.Int("pid", pid), slog.String("signal", sig.String()))
	return nil
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}
