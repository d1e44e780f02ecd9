package harness

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"
)

// RegistryURLEnv names the environment variable with the Confluent-compatible API address of an
// existing schema registry (e.g. http://127.0.0.1:8081/apis/ccompat/v7). When it is set, tests use
// it instead of starting Apicurio.
const RegistryURLEnv = "SCHEMA_REGISTRY_URL"

// ccompatPath is where Apicurio serves the Confluent Schema Registry API.
const ccompatPath = "/apis/ccompat/v7"

const registryLogFile = "registry.log"

// RegistryConfig configures a local Apicurio Registry: a Java process on a free loopback port with
// in-memory storage (H2), serving the Confluent-compatible API.
type RegistryConfig struct {
	// Dir holds registry.log. Required.
	Dir string
	// Version of Apicurio Registry. Default: $APICURIO_VERSION, else DefaultApicurioVersion.
	Version string
	// Jar is the runnable registry jar. Default: EnsureRegistryApp(Version).
	Jar string
	// Java is the java executable. Default: $JAVA_HOME/bin/java, else java from PATH.
	Java string
	// Heap is the maximum heap (-Xmx). Default "384m".
	Heap string
	// StartTimeout bounds the wait for readiness (GET /subjects answers 200). Default 2 minutes.
	StartTimeout time.Duration
	// Logger receives the launcher's progress. Default: discarded.
	Logger *slog.Logger
}

// Validate reports every problem of the configuration at once.
func (c RegistryConfig) Validate() error {
	var errs []error
	if c.Dir == "" {
		errs = append(errs, errors.New("missing Dir: the registry directory is required"))
	}
	if c.StartTimeout < 0 {
		errs = append(errs, errors.New("negative StartTimeout"))
	}
	return errors.Join(errs...)
}

func (c *RegistryConfig) setDefaults(ctx context.Context) error {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Version == "" {
		c.Version = os.Getenv("APICURIO_VERSION")
	}
	if c.Version == "" {
		c.Version = DefaultApicurioVersion
	}
	if c.Heap == "" {
		c.Heap = "384m"
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = 2 * time.Minute
	}
	var err error
	if c.Java == "" {
		if c.Java, err = javaPath(); err != nil {
			return err
		}
	}
	if c.Jar == "" {
		c.Jar, err = EnsureRegistryApp(ctx, c.Version, c.Logger)
	}
	return err
}

// Registry is a running local Apicurio Registry.
type Registry struct {
	cfg  RegistryConfig
	port int
	proc *process
	mu   sync.Mutex
}

// StartRegistry starts Apicurio Registry and returns once its Confluent API answers. The process
// is killed if the test binary dies.
func StartRegistry(ctx context.Context, cfg RegistryConfig) (*Registry, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("registry config: %w", err)
	}
	if err := cfg.setDefaults(ctx); err != nil {
		return nil, fmt.Errorf("start registry: %w", err)
	}
	ports, err := FreePorts(1)
	if err != nil {
		return nil, fmt.Errorf("start registry: %w", err)
	}
	r := &Registry{cfg: cfg, port: ports[0]}
	if err := r.start(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// URL returns the base address of the Confluent-compatible API, for sr.URLs.
func (r *Registry) URL() string {
	return "http://127.0.0.1:" + strconv.Itoa(r.port) + ccompatPath
}

// LogPath returns the path of the registry's log.
func (r *Registry) LogPath() string { return filepath.Join(r.cfg.Dir, registryLogFile) }

func (r *Registry) start(ctx context.Context) error {
	logf, err := os.OpenFile(r.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("start registry: %w", err)
	}
	cmd := exec.Command(r.cfg.Java, "-Xms64m", "-Xmx"+r.cfg.Heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Djava.awt.headless=true",
		"-Dquarkus.http.host=127.0.0.1", "-Dquarkus.http.port="+strconv.Itoa(r.port),
		"-Dquarkus.management.enabled=false",
		"-Dapicurio.storage.kind=sql", "-Dapicurio.storage.sql.kind=h2",
		"-jar", r.cfg.Jar)
	cmd.Dir = r.cfg.Dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = groupAttr(false)
	err = cmd.Start()
	logf.Close()
	if err != nil {
		return fmt.Errorf("start registry: %w", err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	r.proc = p
	r.cfg.Logger.Info("registry starting", slog.Int("pid", cmd.Process.Pid), slog.String("url", r.URL()))
	if err := r.waitReady(ctx, p); err != nil {
		_ = r.Stop()
		return fmt.Errorf("start registry on port %d: %w\n--- last lines of %s ---\n%s", r.port, err, r.LogPath(),
			readTail(r.LogPath(), 40))
	}
	r.cfg.Logger.Info("registry ready", slog.String("url", r.URL()))
	return nil
}

// waitReady polls GET /subjects until it answers 200, the process exits, or StartTimeout passes.
func (r *Registry) waitReady(ctx context.Context, p *process) error {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.StartTimeout)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.URL()+"/subjects", nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("GET /subjects: %s", resp.Status)
		}
		last = err
		select {
		case <-p.done:
			return fmt.Errorf("registry exited before it was ready: %v", p.err)
		case <-ctx.Done():
			return fmt.Errorf("not ready within %v: %w (last attempt: %v)", r.cfg.StartTimeout, ctx.Err(), last)
		case <-tick.C:
		}
	}
}

// Stop ends the registry's process group and returns once the JVM is reaped. In-memory storage:
// everything registered is gone.
func (r *Registry) Stop() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.proc
	if p == nil || p.exited() {
		return nil
	}
	pid := p.cmd.Process.Pid
	if err := signalGroup(pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("stop registry: %w", err)
	}
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
	}
	if err := signalGroup(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("stop registry: %w", err)
	}
	<-p.done
	return nil
}

// sharedRegistry is the registry of this test binary, started on first use.
var sharedRegistry struct {
	once sync.Once
	reg  *Registry
	dir  string
	err  error
}

// SchemaRegistry returns the Confluent API address of a schema registry for t: $SCHEMA_REGISTRY_URL
// when set, otherwise a local Apicurio Registry started once for the whole test binary (stopped
// by StopRegistry; if that never runs it still dies with the test binary). Skipped in -short mode.
func SchemaRegistry(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a schema registry: skipped in -short mode")
	}
	if env := os.Getenv(RegistryURLEnv); env != "" {
		return env
	}
	sharedRegistry.once.Do(func() {
		sharedRegistry.dir, sharedRegistry.err = os.MkdirTemp("", "paysession-registry-")
		if sharedRegistry.err != nil {
			return
		}
		logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		sharedRegistry.reg, sharedRegistry.err = StartRegistry(context.Background(),
			RegistryConfig{Dir: sharedRegistry.dir, Logger: logger})
	})
	if sharedRegistry.err != nil {
		t.Fatalf("local schema registry: %v", sharedRegistry.err)
	}
	return sharedRegistry.reg.URL()
}

// StopRegistry stops the registry that SchemaRegistry started for this test binary, if any, and
// removes its directory. Call it from TestMain after m.Run.
func StopRegistry() {
	if sharedRegistry.reg != nil {
		_ = sharedRegistry.reg.Stop()
	}
	if sharedRegistry.dir != "" {
		_ = os.RemoveAll(sharedRegistry.dir)
	}
}

// RegistryClient returns a franz-go schema registry client of SchemaRegistry(t).
func RegistryClient(t testing.TB) *sr.Client {
	t.Helper()
	cl, err := sr.NewClient(sr.URLs(SchemaRegistry(t)))
	if err != nil {
		t.Fatalf("schema registry client: %v", err)
	}
	return cl
}
