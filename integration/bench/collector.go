package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// collector reads the command-results topic with read_committed and notes
// when each result became readable, by idempotency key.
type collector struct {
	cl     *kgo.Client
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	changed *sync.Cond
	arrived map[string]time.Time
	// produced is each result's record timestamp: when the connector
	// produced it (inside its transaction).
	produced map[string]time.Time
	err      error
}

func startCollector(ctx context.Context, brokers []string, topic string) (*collector, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topic),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(50*time.Millisecond))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	c := &collector{cl: cl, cancel: cancel, done: make(chan struct{}), arrived: map[string]time.Time{}, produced: map[string]time.Time{}}
	c.changed = sync.NewCond(&c.mu)
	go c.run(ctx)
	return c, nil
}

func (c *collector) run(ctx context.Context) {
	defer close(c.done)
	for {
		fs := c.cl.PollFetches(ctx)
		now := time.Now()
		if ctx.Err() != nil {
			return
		}
		c.mu.Lock()
		fs.EachError(func(t string, p int32, err error) { c.err = fmt.Errorf("fetch %s/%d: %w", t, p, err) })
		fs.EachRecord(func(r *kgo.Record) {
			if _, seen := c.arrived[string(r.Key)]; !seen {
				c.arrived[string(r.Key)] = now
				c.produced[string(r.Key)] = r.Timestamp
			}
		})
		c.changed.Broadcast()
		c.mu.Unlock()
	}
}

// wait blocks until every key has a result, and returns their arrival
// times. It fails when ctx ends first.
func (c *collector) wait(ctx context.Context, keys []string) (map[string]time.Time, error) {
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.changed.Broadcast()
	})
	defer stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]time.Time, len(keys))
	for _, k := range keys {
		for {
			if t, ok := c.arrived[k]; ok {
				out[k] = t
				break
			}
			if c.err != nil {
				return nil, c.err
			}
			if ctx.Err() != nil {
				return nil, fmt.Errorf("%d of %d results missing: %w", len(keys)-len(out), len(keys), ctx.Err())
			}
			c.changed.Wait()
		}
	}
	return out, nil
}

func (c *collector) close() {
	c.cancel()
	<-c.done
	c.cl.Close()
}

// producedAt returns when the connector produced the result of each key.
func (c *collector) producedAt(keys []string) map[string]time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]time.Time, len(keys))
	for _, k := range keys {
		out[k] = c.produced[k]
	}
	return out
}
