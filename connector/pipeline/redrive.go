package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// RedriveConfig configures Redrive.
type RedriveConfig struct {
	// Kafka are the client options (seeds, TLS, SASL).
	Kafka []kgo.Opt
	// DeadLetter is the dead-letter topic (default payments.dead-letter).
	DeadLetter string
	// GroupID remembers how far redrive got, so a record is redriven once
	// (default "paysession-redrive").
	GroupID string
	// TransactionalID makes the re-publish and the group's progress one
	// transaction (default GroupID).
	TransactionalID string
	// Decode decodes a dead-letter record's value (required).
	Decode func(value []byte) (*codec.DeadLetter, error)
	// Match selects the records to redrive; others are passed over (and not
	// offered again). Default: all.
	Match  func(*codec.DeadLetter) bool
	Logger *slog.Logger
}

func (c *RedriveConfig) defaults() {
	if c.DeadLetter == "" {
		c.DeadLetter = DefaultTopics().DeadLetter
	}
	if c.GroupID == "" {
		c.GroupID = "paysession-redrive"
	}
	if c.TransactionalID == "" {
		c.TransactionalID = c.GroupID
	}
	if c.Match == nil {
		c.Match = func(*codec.DeadLetter) bool { return true }
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Validate reports every problem of the configuration.
func (c RedriveConfig) Validate() error {
	var errs []error
	if c.Decode == nil {
		errs = append(errs, fmt.Errorf("%s: required", "Decode"))
	}
	if len(c.Kafka) == 0 {
		errs = append(errs, fmt.Errorf("%s: required (at least the seed brokers)", "Kafka"))
	}
	return errors.Join(errs...)
}

// Redrive re-publishes dead-letter records to their source topics, keeping
// the original key, value and headers and adding HeaderRecordTime with the
// original record time, so the key-lifetime guard still counts from when the
// command was first written. It processes the records present when it
// starts, each once (the group's offsets and the re-published records commit
// in one transaction), and returns how many it re-published.
func Redrive(ctx context.Context, cfg RedriveConfig) (int, error) {
	cfg.defaults()
	if err := cfg.Validate(); err != nil {
		return 0, fmt.Errorf("redrive config: %w", err)
	}
	ends, err := endOffsets(ctx, cfg)
	if err != nil {
		return 0, err
	}
	var assigned atomic.Bool
	opts := append(append([]kgo.Opt{}, cfg.Kafka...), kgo.ConsumerGroup(cfg.GroupID),
		kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) { assigned.Store(true) }),
		kgo.ConsumeTopics(cfg.DeadLetter), kgo.TransactionalID(cfg.TransactionalID),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	s, err := kgo.NewGroupTransactSession(opts...)
	if err != nil {
		return 0, fmt.Errorf("redrive session: %w", err)
	}
	defer s.Close()
	n := 0
	for !reached(s, ends) {
		pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		recs := s.PollRecords(pctx, 500).Records()
		cancel()
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
		if len(recs) == 0 {
			if assigned.Load() {
				break // idle: only transaction markers (or nothing) left
			}
			continue
		}
		m, err := redriveBatch(ctx, s, cfg, recs)
		if err != nil {
			return n, err
		}
		n += m
	}
	return n, nil
}

// redriveBatch re-publishes one polled batch in one transaction.
func redriveBatch(ctx context.Context, s *kgo.GroupTransactSession, cfg RedriveConfig, recs []*kgo.Record) (int, error) {
	if err := s.Begin(); err != nil {
		return 0, fmt.Errorf("begin redrive transaction: %w", err)
	}
	var out []*kgo.Record
	for _, r := range recs {
		dl, err := cfg.Decode(r.Value)
		if err != nil {
			cfg.Logger.Warn("undecodable dead letter passed over", slog.Int64("offset", r.Offset), slog.Any("error", err))
			continue
		}
		if cfg.Match(dl) {
			out = append(out, redriveRecord(dl))
		}
	}
	err := s.ProduceSync(ctx, out...).FirstErr()
	committed, endErr := s.End(context.WithoutCancel(ctx), kgo.TransactionEndTry(err == nil))
	switch {
	case err != nil:
		return 0, fmt.Errorf("redrive produce: %w", err)
	case endErr != nil:
		return 0, fmt.Errorf("redrive commit (outcome unknown): %w", endErr)
	case !committed:
		return 0, errors.New("redrive transaction aborted (rebalance); run again")
	}
	return len(out), nil
}

// redriveRecord rebuilds a command record from its dead letter.
func redriveRecord(dl *codec.DeadLetter) *kgo.Record {
	r := &kgo.Record{Topic: dl.OriginalTopic, Key: dl.OriginalKey, Value: dl.OriginalValue}
	for _, h := range dl.OriginalHeaders {
		if h.Key != HeaderRecordTime {
			r.Headers = append(r.Headers, kgo.RecordHeader{Key: h.Key, Value: h.Value})
		}
	}
	if dl.OriginalTimestamp != nil {
		r.Headers = append(r.Headers, hdrInt(HeaderRecordTime, dl.OriginalTimestamp.UnixMilli()))
	}
	return r
}

// endOffsets returns the dead-letter topic's end offsets at the start.
func endOffsets(ctx context.Context, cfg RedriveConfig) (kadm.ListedOffsets, error) {
	cl, err := kgo.NewClient(cfg.Kafka...)
	if err != nil {
		return nil, fmt.Errorf("redrive admin client: %w", err)
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, cfg.DeadLetter)
	if err != nil {
		return nil, fmt.Errorf("list dead-letter end offsets: %w", err)
	}
	return ends, ends.Error()
}

// reached reports whether the session has consumed up to the end offsets.
func reached(s *kgo.GroupTransactSession, ends kadm.ListedOffsets) bool {
	committed := s.Client().CommittedOffsets()
	done := true
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 && committed[o.Topic][o.Partition].Offset < o.Offset {
			done = false
		}
	})
	return done
}
