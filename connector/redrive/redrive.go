package redrive

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
)

// Config configures Run.
type Config struct {
	// Kafka are the client options (seeds, TLS, SASL).
	Kafka []kgo.Opt
	// DeadLetter is the dead-letter topic (required).
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
	Match func(*codec.DeadLetter) bool
	// SourceTimeout bounds the read of one source record (default 10s).
	SourceTimeout time.Duration
	Logger        *slog.Logger
}

func (c *Config) defaults() {
	if c.GroupID == "" {
		c.GroupID = "paysession-redrive"
	}
	if c.TransactionalID == "" {
		c.TransactionalID = c.GroupID
	}
	if c.Match == nil {
		c.Match = func(*codec.DeadLetter) bool { return true }
	}
	if c.SourceTimeout <= 0 {
		c.SourceTimeout = 10 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Validate reports every problem of the configuration.
func (c Config) Validate() error {
	var errs []error
	if c.Decode == nil {
		errs = append(errs, fmt.Errorf("%s: required", "Decode"))
	}
	if c.DeadLetter == "" {
		errs = append(errs, fmt.Errorf("%s: required", "DeadLetter"))
	}
	if len(c.Kafka) == 0 {
		errs = append(errs, fmt.Errorf("%s: required (at least the seed brokers)", "Kafka"))
	}
	return errors.Join(errs...)
}

// Run re-publishes dead-letter records to their source topics. Dead
// letters hold a protected copy of the command (card data masked), so each
// original record is read back from its source topic, partition and offset
// (read_committed) and re-published with its key, value and headers, plus
// header.RecordTime with the original record time, so the key-lifetime guard
// still counts from when the command was first written. A source record that
// is gone (retention) is replaced by the dead letter's own bytes only when
// header.DeadLetterValue says they are the original; otherwise the dead letter
// is skipped. Run processes the records present when it starts, each once
// (the group's offsets and the re-published records commit in one
// transaction per batch), and returns how many it re-published; skipped dead
// letters are logged and listed in an *Error at the end. Dead letters
// written while it runs (those its own redrives cause among them) are left
// for the next run.
func Run(ctx context.Context, cfg Config) (int, error) {
	cfg.defaults()
	if err := cfg.Validate(); err != nil {
		return 0, fmt.Errorf("redrive config: %w", err)
	}
	admin, err := kgo.NewClient(cfg.Kafka...)
	if err != nil {
		return 0, fmt.Errorf("redrive admin client: %w", err)
	}
	defer admin.Close()
	adm := kadm.NewClient(admin)
	scope, err := scopeOf(ctx, adm, cfg.Kafka, cfg.DeadLetter)
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
	n, skipped := 0, &Error{}
	for !scope.done(s, cfg.DeadLetter) {
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
		src := newSourceReader(cfg.Kafka, cfg.SourceTimeout)
		m, err := redriveBatch(ctx, s, cfg, src, recs, skipped)
		if err != nil {
			return n, err
		}
		n += m
	}
	if len(skipped.Skipped) > 0 {
		return n, skipped
	}
	return n, nil
}

// redriveBatch re-publishes one polled batch in one transaction. The source
// records are read first, so the transaction spans only the produce. Dead
// letters that cannot be redriven are added to skipped; their offsets commit
// with the batch (running again cannot help them).
func redriveBatch(ctx context.Context, s *kgo.GroupTransactSession, cfg Config, src *sourceReader,
	recs []*kgo.Record, skipped *Error) (int, error) {
	var out []*kgo.Record
	var skips []SkippedDeadLetter
	for _, r := range recs {
		rec, skip, err := resolveDeadLetter(ctx, cfg, src, r)
		switch {
		case err != nil:
			return 0, err
		case skip != nil:
			skips = append(skips, *skip)
		case rec != nil:
			out = append(out, rec)
		}
	}
	if err := s.Begin(); err != nil {
		return 0, fmt.Errorf("begin redrive transaction: %w", err)
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
	skipped.Skipped = append(skipped.Skipped, skips...)
	return len(out), nil
}

// resolveDeadLetter returns the record that redrives one dead letter, or why
// it is skipped, or nil for a letter passed over (undecodable, not matched).
// An error is transient (the source could not be read): the batch stops.
func resolveDeadLetter(ctx context.Context, cfg Config, src *sourceReader, r *kgo.Record) (*kgo.Record, *SkippedDeadLetter, error) {
	dl, err := cfg.Decode(r.Value)
	if err != nil {
		cfg.Logger.Warn("undecodable dead letter passed over", slog.Int64("offset", r.Offset), slog.Any("error", err))
		return nil, nil, nil
	}
	if !cfg.Match(dl) {
		return nil, nil, nil
	}
	at := slog.Group("source", slog.String("topic", dl.OriginalTopic),
		slog.Int("partition", int(dl.OriginalPartition)), slog.Int64("offset", dl.OriginalOffset))
	orig, err := src.read(ctx, dl)
	if err == nil {
		return redriveFromSource(dl, orig), nil, nil
	}
	if !errors.Is(err, errSourceUnavailable) {
		return nil, nil, fmt.Errorf("read source of dead letter %s/%d/%d: %w",
			dl.OriginalTopic, dl.OriginalPartition, dl.OriginalOffset, err)
	}
	protection := deadLetterProtection(r)
	if protection == codec.ValueOriginal {
		cfg.Logger.Info("source record unavailable; redriving the dead letter's original bytes", at, slog.Any("reason", err))
		return redriveRecord(dl), nil, nil
	}
	skip := &SkippedDeadLetter{Topic: dl.OriginalTopic, Partition: dl.OriginalPartition, Offset: dl.OriginalOffset,
		Reason: fmt.Sprintf("%v, and the dead letter's value is %s", err, protection)}
	cfg.Logger.Error("dead letter not redriven", at, slog.String("reason", skip.Reason))
	return nil, skip, nil
}

// redriveFromSource rebuilds a command record from its source record: the
// original key, value and headers (minus the connector's own) and the
// original record time.
func redriveFromSource(dl *codec.DeadLetter, src *kgo.Record) *kgo.Record {
	r := &kgo.Record{Topic: dl.OriginalTopic, Key: src.Key, Value: src.Value, Headers: header.Foreign(src)}
	at := header.OriginalTime(src, false)
	if dl.OriginalTimestamp != nil {
		at = *dl.OriginalTimestamp
	}
	r.Headers = append(r.Headers, header.NewInt(header.RecordTime, at.UnixMilli()), redriveProvenance(dl))
	return r
}

// redriveRecord rebuilds a command record from a dead letter that holds the
// original bytes.
func redriveRecord(dl *codec.DeadLetter) *kgo.Record {
	r := &kgo.Record{Topic: dl.OriginalTopic, Key: dl.OriginalKey, Value: dl.OriginalValue}
	for _, h := range dl.OriginalHeaders {
		if h.Key != header.RecordTime {
			r.Headers = append(r.Headers, kgo.RecordHeader{Key: h.Key, Value: h.Value})
		}
	}
	if dl.OriginalTimestamp != nil {
		r.Headers = append(r.Headers, header.NewInt(header.RecordTime, dl.OriginalTimestamp.UnixMilli()))
	}
	r.Headers = append(r.Headers, redriveProvenance(dl))
	return r
}

// deadLetterProtection reads header.DeadLetterValue of a dead-letter
// record. Letters written before values were protected have no header and
// carry the original bytes.
func deadLetterProtection(r *kgo.Record) codec.ValueProtection {
	if v, ok := header.Get(r, header.DeadLetterValue); ok {
		return codec.ValueProtection(v)
	}
	return codec.ValueOriginal
}

// redriveProvenance marks a redriven record with the source it was
// dead-lettered from, so that the key-lifetime guard honours its original
// record time.
func redriveProvenance(dl *codec.DeadLetter) kgo.RecordHeader {
	return header.New(header.Redrive, fmt.Sprintf("%s/%d/%d", dl.OriginalTopic, dl.OriginalPartition, dl.OriginalOffset))
}

// SkippedDeadLetter names a dead letter Run could not re-publish.
type SkippedDeadLetter struct {
	Topic     string
	Partition int32
	Offset    int64
	Reason    string
}

// Error lists the dead letters Run skipped: their source record
// is gone and the dead letter holds only a masked or withheld value.
type Error struct {
	Skipped []SkippedDeadLetter
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d dead letters not redriven:", len(e.Skipped))
	for i, s := range e.Skipped {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, " %s/%d/%d (%s)", s.Topic, s.Partition, s.Offset, s.Reason)
	}
	return b.String()
}
