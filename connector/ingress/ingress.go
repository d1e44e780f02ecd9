package ingress

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paysession/paysession/internal/fifo"
)

// Ingress is the webhook endpoint. It is an http.Handler to mount on the
// connector's HTTP server; Run ties its lifetime to a context.
type Ingress struct {
	cfg     Config
	paths   map[string]*string // served URL path → its project (nil: the default)
	metrics *metrics
	// deliveries remembers webhooks by event id: those being published (so
	// a redelivery waits for the first attempt instead of producing twice),
	// those published (answered 200 again without publishing) and those
	// that failed (retried with only the records Kafka did not take);
	// bounded by DedupeMaxEntries and DedupeTTL.
	deliveries *fifo.Set[string, *delivery]
	// confirmed remembers the sessions session/status found, with their
	// project (binding.go); bounded by DedupeMaxEntries and DedupeTTL.
	confirmed *fifo.Set[string, *string]
	checks    chan struct{} // one token per session/status call in flight, MaxChecks at most

	baseCtx  context.Context // cancels records still buffered at hard stop
	cancel   context.CancelFunc
	stopMu   sync.RWMutex // orders handlers.Add before Shutdown's Wait
	stopping bool
	handlers sync.WaitGroup // requests being served
	bodies   chan struct{}  // one token per request holding a body, MaxBodies at most
	slots    chan struct{}  // one token per verified webhook in flight, MaxInFlight at most
	waiting  atomic.Int64   // verified webhooks waiting for a slot
	pending  sync.WaitGroup // publish attempts not yet settled
}

// New validates cfg and returns an Ingress.
func New(cfg Config) (*Ingress, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("webhook ingress config: %w", err)
	}
	cfg.defaults()
	d := fifo.New[string, *delivery](cfg.DedupeMaxEntries, cfg.DedupeTTL)
	m, err := newMetrics(cfg.Registerer, func() int { return d.Len(cfg.Now()) })
	if err != nil {
		return nil, fmt.Errorf("webhook ingress metrics: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Ingress{cfg: cfg, paths: projectPaths(cfg), metrics: m, deliveries: d, baseCtx: ctx, cancel: cancel,
		confirmed: fifo.New[string, *string](cfg.DedupeMaxEntries, cfg.DedupeTTL), checks: make(chan struct{}, cfg.MaxChecks),
		bodies: make(chan struct{}, cfg.MaxBodies), slots: make(chan struct{}, cfg.MaxInFlight)}, nil
}

// Path returns the URL path of the default project's webhooks; each
// further project's are at ProjectPath.
func (in *Ingress) Path() string { return in.cfg.Path }

// Run blocks until ctx ends, then stops the ingress gracefully (see
// Shutdown) with PublishTimeout as the grace period.
func (in *Ingress) Run(ctx context.Context) error {
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), in.cfg.PublishTimeout)
	defer cancel()
	return in.Shutdown(sctx)
}

// Shutdown makes new webhooks get 503 (the service redelivers them), waits
// for requests in flight and their publishes to settle, and when ctx ends
// first, fails the records still buffered. Call it after the HTTP server's
// own Shutdown and before closing the Kafka client.
func (in *Ingress) Shutdown(ctx context.Context) error {
	in.stopMu.Lock()
	in.stopping = true
	in.stopMu.Unlock()
	done := make(chan struct{})
	go func() {
		in.handlers.Wait()
		in.pending.Wait()
		close(done)
	}()
	select {
	case <-done:
		in.cancel()
		return nil
	case <-ctx.Done():
		in.cancel()
		return fmt.Errorf("webhook ingress shutdown: %w", ctx.Err())
	}
}

// admission is enter's answer.
type admission int

const (
	entered    admission = iota
	overloaded           // MaxInFlight webhooks are being published
	stopping             // Shutdown has begun
)

// retryAfterOverloaded is the Retry-After (seconds) of a 503 beyond
// MaxInFlight or MaxBodies: requests in flight end within PublishTimeout,
// most of them in milliseconds, bodies are read within BodyTimeout, and the
// service retries at its own growing intervals.
const retryAfterOverloaded = "1"

// holdBody takes a token of MaxBodies for a request about to read its body,
// without waiting: when MaxBodies requests hold a body it reports false and
// the request is refused unread. A request that got one must call
// dropBody when it ends.
func (in *Ingress) holdBody() bool {
	select {
	case in.bodies <- struct{}{}:
		return true
	default:
		return false
	}
}

func (in *Ingress) dropBody() { <-in.bodies }

// enter counts a verified webhook in, unless the ingress is stopping. When
// MaxInFlight webhooks are being published it waits up to AdmitWait for one
// to end, unless MaxWaiting webhooks wait already; then, or when the wait
// ends first, the webhook is overloaded. A burst of webhooks (the service
// sends one per session at once, and retries them together) is so absorbed
// instead of refused. Only a body that verified gets here, so the slots are
// the service's alone. A request that entered must call leave.
func (in *Ingress) enter(ctx context.Context) admission {
	if in.isStopping() {
		return stopping
	}
	if !in.acquire(ctx) {
		return overloaded
	}
	in.stopMu.RLock()
	defer in.stopMu.RUnlock()
	if in.stopping {
		<-in.slots
		return stopping
	}
	in.handlers.Add(1)
	in.metrics.inFlight.Inc()
	return entered
}

// acquire takes a slot, waiting as enter describes.
func (in *Ingress) acquire(ctx context.Context) bool {
	select {
	case in.slots <- struct{}{}:
		return true
	default:
	}
	if in.waiting.Add(1) > int64(in.cfg.MaxWaiting) {
		in.waiting.Add(-1)
		return false
	}
	defer in.waiting.Add(-1)
	t := time.NewTimer(in.cfg.AdmitWait)
	defer t.Stop()
	select {
	case in.slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

func (in *Ingress) isStopping() bool {
	in.stopMu.RLock()
	defer in.stopMu.RUnlock()
	return in.stopping
}

// leave counts a request out.
func (in *Ingress) leave() {
	in.metrics.inFlight.Dec()
	<-in.slots
	in.handlers.Done()
}

// wait waits for a publish attempt for at most PublishTimeout.
func (in *Ingress) wait(ctx context.Context, a *attempt) error {
	t := time.NewTimer(in.cfg.PublishTimeout)
	defer t.Stop()
	select {
	case <-a.done:
		return a.result()
	case <-t.C:
		return fmt.Errorf("kafka did not acknowledge within %s", in.cfg.PublishTimeout)
	case <-ctx.Done():
		return fmt.Errorf("request ended before kafka acknowledged: %w", ctx.Err())
	}
}
