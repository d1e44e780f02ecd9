package ingress

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"
	"time"
)

// Ingress is the webhook endpoint. It is an http.Handler to mount on the
// connector's HTTP server; Run ties its lifetime to a context.
type Ingress struct {
	cfg        Config
	metrics    *metrics
	deliveries *deliveries
	stripes    [64]sync.Mutex

	baseCtx  context.Context // cancels records still buffered at hard stop
	cancel   context.CancelFunc
	stopMu   sync.RWMutex // orders handlers.Add before Shutdown's Wait
	stopping bool
	handlers sync.WaitGroup // requests being served
	pending  sync.WaitGroup // publish attempts not yet settled
}

// New validates cfg and returns an Ingress.
func New(cfg Config) (*Ingress, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("webhook ingress config: %w", err)
	}
	cfg.defaults()
	d := newDeliveries(cfg.DedupeTTL, cfg.DedupeMaxEntries)
	m, err := newMetrics(cfg.Registerer, d)
	if err != nil {
		return nil, fmt.Errorf("webhook ingress metrics: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Ingress{cfg: cfg, metrics: m, deliveries: d, baseCtx: ctx, cancel: cancel}, nil
}

// Path returns the URL path the ingress serves.
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

// enter counts a request in, or reports that the ingress is stopping.
func (in *Ingress) enter() bool {
	in.stopMu.RLock()
	defer in.stopMu.RUnlock()
	if in.stopping {
		return false
	}
	in.handlers.Add(1)
	return true
}

// stripe returns the lock that orders the records of one session.
func (in *Ingress) stripe(sessionID string) *sync.Mutex {
	h := fnv.New32a()
	h.Write([]byte(sessionID))
	return &in.stripes[h.Sum32()%uint32(len(in.stripes))]
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
