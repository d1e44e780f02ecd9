package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/paysession/paysession/connector/kit"
)

// Config says what the ledger reads.
type Config struct {
	Brokers  []string
	Registry string // Confluent API URL; "" when the connector writes single-object values
	Group    string
	Topics   kit.Topics
}

// Consumer reads the outcome topics into a Ledger, exactly once in effect.
type Consumer struct {
	cl     *kgo.Client
	dec    *kit.Decoder
	topics kit.Topics
}

// NewConsumer returns a consumer of the command results, sessions and
// webhook events topics, in consumer group cfg.Group, read_committed.
func NewConsumer(cfg Config) (*Consumer, error) {
	if len(cfg.Brokers) == 0 || cfg.Group == "" {
		return nil, errors.New("brokers and group are required")
	}
	var reg *sr.Client
	if cfg.Registry != "" {
		var err error
		if reg, err = sr.NewClient(sr.URLs(cfg.Registry)); err != nil {
			return nil, err
		}
	}
	dec, err := kit.NewDecoder(kit.DecoderConfig{Registry: reg})
	if err != nil {
		return nil, err
	}
	t := cfg.Topics
	cl, err := kgo.NewClient(kgo.SeedBrokers(cfg.Brokers...), kgo.ConsumerGroup(cfg.Group),
		kgo.ConsumeTopics(t.CommandResults, t.Sessions, t.WebhookEvents),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), // the connector writes in transactions
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit()) // offsets are committed after booking
	if err != nil {
		return nil, err
	}
	return &Consumer{cl: cl, dec: dec, topics: t}, nil
}

// Poll reads one batch of records into l and commits their offsets after
// they are booked. It returns the number of records read.
func (c *Consumer) Poll(ctx context.Context, l *Ledger) (int, error) {
	fetches := c.cl.PollFetches(ctx)
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if errs := fetches.Errors(); len(errs) > 0 {
		return 0, fmt.Errorf("fetch %s: %w", errs[0].Topic, errs[0].Err)
	}
	recs := fetches.Records()
	for _, r := range recs {
		v, err := c.dec.DecodeAny(ctx, r.Value)
		if err != nil {
			return 0, fmt.Errorf("%s/%d@%d: %w", r.Topic, r.Partition, r.Offset, err)
		}
		l.Apply(v)
	}
	if err := c.cl.CommitRecords(ctx, recs...); err != nil {
		return 0, fmt.Errorf("commit: %w", err)
	}
	return len(recs), nil
}

// Close leaves the group.
func (c *Consumer) Close() { c.cl.Close() }
