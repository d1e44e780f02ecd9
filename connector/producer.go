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

	"github.com/paysession/paysession/internal/outbound"
)

// Producer is the connector's shared plain producer (webhook ingress,
// reconciler, publishers). It rebuilds its franz-go client when a produce
// fails with UNKNOWN_TOPIC_ID: a topic deleted and recreated has a new topic
// id that an existing client never learns (measured on Kafka 4.1: still
// failing 24 s after the recreation, with no end in sight), while a new
// client picks it up at once. The pipeline's transactional session is
// rebuilt by the pipeline itself (pipeline/writes.go).
//
// It also rebuilds its client when the limit of a topic it writes changed
// (the limits it was built with, pinned, differ from the live ones):
// franz-go fixes a partition's batch cap when it first produces to it
// (see connector/pipeline's limits.go). That rebuild is gentle: the new
// client takes the produces at once, the old one gets ten seconds to
// deliver what it holds before it closes.
type Producer struct {
	newClient func(opts ...kgo.Opt) (*kgo.Client, error)
	limits    outbound.Limits
	log       *slog.Logger

	mu   sync.RWMutex
	cl   *kgo.Client
	caps outbound.Limits // cl's batch caps, pinned from limits

	rebuilding  atomic.Bool
	lastRebuild atomic.Int64 // unix nanoseconds
}

// minRebuildInterval spaces rebuilds: records in flight on the old client
// fail when it closes, so a burst of errors must cause one rebuild.
const minRebuildInterval = 5 * time.Second

// NewProducer builds the first client with newClient, which is called again
// for each rebuild (so per-client hooks, such as kprom metrics that
// unregister on close, come fresh) with the batch caps of limits as they
// are then (nil limits: Kafka's defaults).
func NewProducer(newClient func(opts ...kgo.Opt) (*kgo.Client, error), limits outbound.Limits, log *slog.Logger) (*Producer, error) {
	p := &Producer{newClient: newClient, limits: limits, log: log}
	cl, caps, err := p.build()
	if err != nil {
		return nil, err
	}
	p.cl, p.caps = cl, caps
	return p, nil
}

// build makes a client capped by the limits as they are now.
func (p *Producer) build() (*kgo.Client, outbound.Limits, error) {
	caps := outbound.Pin(p.limits)
	cl, err := p.newClient(kgo.ProducerBatchMaxBytesFn(outbound.BatchCaps(caps)))
	return cl, caps, err
}

// Caps returns the batch caps of the client the producer uses, following
// its rebuilds: pin the Sizer of the records it writes to them
// (outbound.Sizer.Pinned).
func (p *Producer) Caps() outbound.Limits { return producerCaps{p} }

// producerCaps are a Producer's current batch caps.
type producerCaps struct{ p *Producer }

// MaxMessageBytes is the current client's cap for topic. Asking starts the
// rebuild that follows a changed limit of topic (follow), so a record
// sized against the old cap is the last one: even when it fits in no form
// and is never produced.
func (c producerCaps) MaxMessageBytes(topic string) int {
	c.p.follow(&kgo.Record{Topic: topic})
	c.p.mu.RLock()
	caps := c.p.caps
	c.p.mu.RUnlock()
	return int(outbound.BatchCaps(caps)(topic))
}

// Client returns the current client (also for admin requests).
func (p *Producer) Client() *kgo.Client {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.cl
}

// TryProduce produces r without blocking on a full buffer (kgo.Client.TryProduce).
func (p *Producer) TryProduce(ctx context.Context, r *kgo.Record, promise func(*kgo.Record, error)) {
	p.follow(r)
	p.Client().TryProduce(ctx, r, func(r *kgo.Record, err error) {
		p.noteError(err)
		promise(r, err)
	})
}

// ProduceSync produces rs and waits for them (kgo.Client.ProduceSync).
func (p *Producer) ProduceSync(ctx context.Context, rs ...*kgo.Record) kgo.ProduceResults {
	p.follow(rs...)
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
	if p.mayRebuild() {
		go p.rebuild()
	}
}

// follow starts a gentle rebuild when the limit of a topic of rs changed
// since the client was built, at most once per minRebuildInterval; rs go to
// the current client meanwhile (their Sizer checked them against the
// smaller limit).
func (p *Producer) follow(rs ...*kgo.Record) {
	if p.limits == nil {
		return
	}
	p.mu.RLock()
	caps := p.caps
	p.mu.RUnlock()
	now := outbound.Pin(p.limits)
	for _, r := range rs {
		if outbound.Changed(caps, now, r.Topic) {
			if p.mayRebuild() {
				go p.rebuildGently()
			}
			return
		}
	}
}

// mayRebuild claims the one rebuild that may start now.
func (p *Producer) mayRebuild() bool {
	return time.Since(time.Unix(0, p.lastRebuild.Load())) >= minRebuildInterval && p.rebuilding.CompareAndSwap(false, true)
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
	cl, caps, err := p.build()
	if err != nil {
		// Options that built the first client build this one; keep a
		// closed client rather than none, so callers see ErrClientClosed.
		p.log.Error("rebuilding the kafka producer failed", slog.Any("error", err))
		return
	}
	p.cl, p.caps = cl, caps
	p.log.Warn("kafka producer rebuilt: a topic it writes was recreated (UNKNOWN_TOPIC_ID)")
}

// rebuildGently replaces the client to follow changed limits: the new one
// is built first and takes every produce from then on; the old one gets
// gentleFlush to deliver what it holds, then closes.
func (p *Producer) rebuildGently() {
	defer p.rebuilding.Store(false)
	p.lastRebuild.Store(time.Now().UnixNano())
	cl, caps, err := p.build()
	if err != nil {
		p.log.Error("rebuilding the kafka producer for changed topic limits failed; keeping the current one", slog.Any("error", err))
		return
	}
	p.mu.Lock()
	old := p.cl
	p.cl, p.caps = cl, caps
	p.mu.Unlock()
	p.log.Info("kafka producer rebuilt: the max.message.bytes of a topic it writes changed")
	ctx, cancel := context.WithTimeout(context.Background(), gentleFlush)
	defer cancel()
	_ = old.Flush(ctx)
	old.Close()
}

// gentleFlush bounds how long a replaced client may deliver what it holds.
const gentleFlush = 10 * time.Second
