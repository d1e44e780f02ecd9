package connector

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Producer is the connector's shared plain producer (webhook ingress,
// reconciler, publishers). It rebuilds its franz-go client when a produce
// fails with UNKNOWN_TOPIC_ID: a topic deleted and recreated has a new topic
// id that an existing client never learns (measured on Kafka 4.1: still
// failing 24 s after the recreation, with no end in sight), while a new
// client picks it up at once. The pipeline's transactional session is
// rebuilt by the pipeline itself (pipeline/writes.go).
type Producer struct {
	newClient func() (*kgo.Client, error)
	log       *slog.Logger

	mu sync.RWMutex
	cl *kgo.Client

	rebuilding  atomic.Bool
	lastRebuild atomic.Int64 // unix nanoseconds
}

// minRebuildInterval spaces rebuilds: records in flight on the old client
// fail when it closes, so a burst of errors must cause one rebuild.
const minRebuildInterval = 5 * time.Second

// NewProducer builds the first client with newClient, which is called again
// for each rebuild (so per-client hooks, such as kprom metrics that
// unregister on close, come fresh).
func NewProducer(newClient func() (*kgo.Client, error), log *slog.Logger) (*Producer, error) {
	cl, err := newClient()
	if err != nil {
		return nil, err
	}
	return &Producer{newClient: newClient, log: log, cl: cl}, nil
}

// Client returns the current client (also for admin requests).
func (p *Producer) Client() *kgo.Client {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.cl
}

// TryProduce produces r without blocking on a full buffer (kgo.Client.TryProduce).
func (p *Producer) TryProduce(ctx context.Context, r *kgo.Record, promise func(*kgo.Record, error)) {
	p.Client().TryProduce(ctx, r, func(r *kgo.Record, err error) {
		p.noteError(err)
		promise(r, err)
	})
}

// ProduceSync produces rs and waits for them (kgo.Client.ProduceSync).
func (p *Producer) ProduceSync(ctx context.Context, rs ...*kgo.Record) kgo.ProduceResults {
	res := p.Client().ProduceSync(ctx, rs...)
	for _, r := range res {
		p.noteError(r.Err)
	}
	return res
}

// Ping checks that a broker answers.
func (p *Producer) Ping(ctx context.Context) error { return p.Client().Ping(ctx) }

// Close closes the current client.
func (p *Producer) Close() { p.Client().Close() }

// noteError starts a rebuild on UNKNOWN_TOPIC_ID, at most once per
// minRebuildInterval.
func (p *Producer) noteError(err error) {
	if err == nil || !errors.Is(err, kerr.UnknownTopicID) {
		return
	}
	if time.Since(time.Unix(0, p.lastRebuild.Load())) < minRebuildInterval || !p.rebuilding.CompareAndSwap(false, true) {
		return
	}
	go p.rebuild()
}

// rebuild replaces the client: the old one is closed first (its buffered
// records fail, and their callers answer as for any produce failure), then
// the new one is built.
func (p *Producer) rebuild() {
	defer p.rebuilding.Store(false)
	p.lastRebuild.Store(time.Now().UnixNano())
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cl.Close()
	cl, err := p.newClient()
	if err != nil {
		// Options that built the first client build this one; keep a
		// closed client rather than none, so callers see ErrClientClosed.
		p.log.Error("rebuilding the kafka producer failed", slog.Any("error", err))
		return
	}
	p.cl = cl
	p.log.Warn("kafka producer rebuilt: a topic it writes was recreated (UNKNOWN_TOPIC_ID)")
}
