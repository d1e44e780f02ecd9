package redrive

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
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
	// TransactionalID of the transactions that re-publish letters (default
	// "paysession-redrive"). A run fences the earlier runs of its ID before
	// it reads the markers, so two runs never redrive one letter twice.
	TransactionalID string
	// Decode decodes a dead-letter record's value (required).
	Decode func(value []byte) (*codec.DeadLetter, error)
	// Filter selects the letters to redrive (default: all). Letters it
	// does not select are left as they are, for a later run.
	Filter Filter
	// Limit is the most letters one run redrives (0: no limit).
	Limit int
	// MaxRedrives is how many times a command may be redriven (default
	// 3): a letter whose command was redriven that often is skipped, so a
	// command that keeps failing cannot loop (header.RedriveCount).
	MaxRedrives int
	// DryRun resolves and reports the letters without writing anything.
	DryRun bool
	// Report, when set, receives each selected letter and what became of it.
	Report func(Letter)
	// Progress, when set, receives the run's counts after each batch read.
	Progress func(Progress)
	// SourceTimeout bounds the read of one batch's source records (default 10s).
	SourceTimeout time.Duration
	Logger        *slog.Logger
}

func (c *Config) defaults() {
	if c.TransactionalID == "" {
		c.TransactionalID = "paysession-redrive"
	}
	if c.MaxRedrives <= 0 {
		c.MaxRedrives = 3
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
	if c.Limit < 0 {
		errs = append(errs, fmt.Errorf("%s: must not be negative", "Limit"))
	}
	return errors.Join(errs...)
}

// Action is what a run did with a selected letter.
type Action string

// The actions of Letter.
const (
	Redriven        Action = "redriven"
	WouldRedrive    Action = "would redrive" // DryRun
	Skipped         Action = "skipped"
	AlreadyRedriven Action = "already redriven"
)

// Letter is a selected dead letter and what the run did with it, for
// Config.Report. It holds no value: the key is scrubbed.
type Letter struct {
	Partition int32 // on the dead-letter topic
	Offset    int64
	Key       string
	Source    string // topic/partition/offset of the command
	ErrorCode string
	Action    Action
	Reason    string // of a skip
}

// Progress counts a run's letters so far, for Config.Progress.
type Progress struct {
	Read     int // records of the dead-letter topic read
	Selected int // letters the filter selected (markers and redriven ones aside)
	Redriven int // redriven, or would be (DryRun)
	Skipped  int
}

// errLimit ends the read at the run's Limit.
var errLimit = errors.New("limit reached")

// Run re-publishes dead-letter records to their source topics. Dead
// letters hold a protected copy of the command (card data masked), so each
// original record is read back from its source topic, partition and offset
// (read_committed) and re-published with its key, value and headers, plus
// header.RecordTime with the original record time, so the key-lifetime guard
// still counts from when the command was first written. A source record that
// is gone (retention) is replaced by the dead letter's own bytes only when
// header.DeadLetterValue says they are the original; otherwise the dead letter
// is skipped.
//
// Run reads the letters present when it starts by explicit offsets, with no
// consumer group, and never passes over a letter: one its Filter does not
// select is left for another run. Each re-published letter gets a redrive
// marker in the same transaction (marker.go), and letters with a marker are
// not redriven again. Run returns how many letters it re-published (with
// DryRun, would); skipped dead letters are logged and listed in an *Error
// at the end. Dead letters written while it runs (those its own redrives
// cause among them) are left for the next run.
func Run(ctx context.Context, cfg Config) (int, error) {
	cfg.defaults()
	if err := cfg.Validate(); err != nil {
		return 0, fmt.Errorf("redrive config: %w", err)
	}
	var w *kgo.Client
	if !cfg.DryRun {
		var err error
		if w, err = fence(ctx, cfg); err != nil {
			return 0, err
		}
		defer w.Close()
	}
	admin, err := kgo.NewClient(cfg.Kafka...)
	if err != nil {
		return 0, fmt.Errorf("redrive admin client: %w", err)
	}
	defer admin.Close()
	scope, err := scopeOf(ctx, kadm.NewClient(admin), cfg.Kafka, cfg.DeadLetter)
	if err != nil {
		return 0, err
	}
	done, err := redrivenLetters(ctx, cfg.Kafka, cfg.DeadLetter, scope)
	if err != nil {
		return 0, err
	}
	r := &run{cfg: cfg, w: w, done: done, src: newSourceReader(cfg.Kafka, cfg.SourceTimeout), skipped: &Error{}}
	err = readLetters(ctx, cfg.Kafka, cfg.DeadLetter, scope, func(recs []*kgo.Record) error { return r.batch(ctx, recs) })
	if err != nil && !errors.Is(err, errLimit) {
		return r.Redriven, err
	}
	if len(r.skipped.Skipped) > 0 {
		return r.Redriven, r.skipped
	}
	return r.Redriven, nil
}

// fence starts the transactional client of a run. Initializing its
// producer id aborts an earlier run's open transaction and fences that run,
// so the markers read next are all there will be.
func fence(ctx context.Context, cfg Config) (*kgo.Client, error) {
	w, err := kgo.NewClient(append(append([]kgo.Opt{}, cfg.Kafka...), kgo.TransactionalID(cfg.TransactionalID))...)
	if err != nil {
		return nil, fmt.Errorf("redrive producer: %w", err)
	}
	if _, _, err := w.ProducerID(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("redrive producer id: %w", err)
	}
	return w, nil
}

// run is the state of one Run across its batches.
type run struct {
	Progress
	cfg     Config
	w       *kgo.Client // nil in a dry run
	done    map[letterAt]bool
	src     *sourceReader
	skipped *Error
}

// candidate is a selected letter and the record that redrives it.
type candidate struct {
	letter Letter
	dl     *codec.DeadLetter
	rec    *kgo.Record // the dead letter
	out    *kgo.Record // its redrive
}

// batch handles the records of one poll: it selects the letters, resolves
// them and re-publishes them in one transaction with their markers.
func (r *run) batch(ctx context.Context, recs []*kgo.Record) error {
	var cands []candidate
	var stop error
	for _, rec := range recs {
		r.Read++
		c, ok := r.selectLetter(rec)
		if !ok {
			continue
		}
		if r.cfg.Limit > 0 && r.Selected >= r.cfg.Limit {
			stop = errLimit
			break
		}
		r.Selected++
		cands = append(cands, c)
	}
	if err := r.resolveAll(ctx, cands); err != nil {
		return err
	}
	if err := r.publish(ctx, cands); err != nil {
		return err
	}
	if r.cfg.Progress != nil {
		r.cfg.Progress(r.Progress)
	}
	return stop
}

// selectLetter decodes a record of the dead-letter topic and reports
// whether the run redrives it: a dead letter the filter selects that no
// marker names. A letter already redriven is reported as such.
func (r *run) selectLetter(rec *kgo.Record) (candidate, bool) {
	if IsMarker(rec) {
		return candidate{}, false
	}
	dl, err := r.cfg.Decode(rec.Value)
	if err != nil {
		r.cfg.Logger.Warn("undecodable dead letter left", slog.Int("partition", int(rec.Partition)),
			slog.Int64("offset", rec.Offset), slog.Any("error", err))
		return candidate{}, false
	}
	if !r.cfg.Filter.Matches(rec, dl) {
		return candidate{}, false
	}
	code, _ := header.Get(rec, header.ErrorCode)
	l := Letter{Partition: rec.Partition, Offset: rec.Offset, Key: codec.Scrub(string(rec.Key)), ErrorCode: code,
		Source: fmt.Sprintf("%s/%d/%d", dl.OriginalTopic, dl.OriginalPartition, dl.OriginalOffset)}
	if r.done[letterAt{rec.Partition, rec.Offset}] {
		l.Action = AlreadyRedriven
		r.report(l)
		return candidate{}, false
	}
	return candidate{letter: l, dl: dl, rec: rec}, true
}

// resolveAll reads the source records of a batch's letters in one read and
// resolves each. An error is transient (the sources could not be read): the
// run stops.
func (r *run) resolveAll(ctx context.Context, cands []candidate) error {
	var dls []*codec.DeadLetter
	var todo []*candidate
	for i := range cands {
		c := &cands[i]
		if count := redriveCount(c.rec); count >= int64(r.cfg.MaxRedrives) {
			c.letter.Action, c.letter.Reason = Skipped, fmt.Sprintf("redriven %d times already (the limit)", count)
			continue
		}
		dls, todo = append(dls, c.dl), append(todo, c)
	}
	if len(todo) == 0 {
		return nil
	}
	origs, errs, err := r.src.readAll(ctx, dls)
	if err != nil {
		return fmt.Errorf("read the source records of %d dead letters: %w", len(dls), err)
	}
	for i, c := range todo {
		r.resolve(c, origs[i], errs[i])
	}
	return nil
}

// resolve finds the record that redrives c from its source record orig (or
// why orig is unavailable, err), or why c is skipped.
func (r *run) resolve(c *candidate, orig *kgo.Record, err error) {
	dl, count := c.dl, redriveCount(c.rec)
	switch {
	case err == nil:
		c.out = redriveFromSource(dl, orig)
		if n, ok := header.Int(orig, header.RedriveCount); ok && n > count {
			count = n
		}
	case deadLetterProtection(c.rec) == codec.ValueOriginal:
		r.cfg.Logger.Info("source record unavailable; redriving the dead letter's original bytes",
			slog.String("source", c.letter.Source), slog.Any("reason", err))
		c.out = redriveRecord(dl)
	default:
		c.letter.Action = Skipped
		c.letter.Reason = fmt.Sprintf("%v, and the dead letter's value is %s", err, deadLetterProtection(c.rec))
		return
	}
	if count >= int64(r.cfg.MaxRedrives) {
		c.out, c.letter.Action, c.letter.Reason = nil, Skipped, fmt.Sprintf("redriven %d times already (the limit)", count)
		return
	}
	c.out.Headers = append(c.out.Headers, header.NewInt(header.RedriveCount, count+1))
	c.letter.Action = Redriven
	if r.cfg.DryRun {
		c.letter.Action = WouldRedrive
	}
}

// redriveCount is how many times the command of a dead letter was
// redriven, as the pipeline carried it to the letter.
func redriveCount(r *kgo.Record) int64 {
	n, _ := header.Int(r, header.RedriveCount)
	return n
}

// publish re-publishes the resolved letters of a batch and their markers in
// one transaction (nothing in a dry run), then reports every letter.
func (r *run) publish(ctx context.Context, cands []candidate) error {
	var out []*kgo.Record
	for _, c := range cands {
		if c.out != nil {
			out = append(out, c.out, markerOf(c.rec))
		}
	}
	if len(out) > 0 && !r.cfg.DryRun {
		if err := r.transact(ctx, out); err != nil {
			return err
		}
	}
	for _, c := range cands {
		switch c.letter.Action {
		case Skipped:
			r.Skipped++
			r.skipped.Skipped = append(r.skipped.Skipped, SkippedDeadLetter{Topic: c.dl.OriginalTopic,
				Partition: c.dl.OriginalPartition, Offset: c.dl.OriginalOffset, Reason: c.letter.Reason})
			r.cfg.Logger.Error("dead letter not redriven", slog.String("source", c.letter.Source),
				slog.String("reason", c.letter.Reason))
		default:
			r.Redriven++
		}
		r.report(c.letter)
	}
	return nil
}

// transact produces records in one transaction.
func (r *run) transact(ctx context.Context, out []*kgo.Record) error {
	if err := r.w.BeginTransaction(); err != nil {
		return fmt.Errorf("begin redrive transaction: %w", err)
	}
	err := r.w.ProduceSync(ctx, out...).FirstErr()
	if err != nil {
		r.w.AbortBufferedRecords(context.WithoutCancel(ctx)) //nolint:errcheck // the produce error is the one to report
	}
	endErr := r.w.EndTransaction(context.WithoutCancel(ctx), kgo.TransactionEndTry(err == nil))
	switch {
	case err != nil:
		return fmt.Errorf("redrive produce: %w", err)
	case endErr != nil:
		return fmt.Errorf("redrive commit (outcome unknown): %w", endErr)
	}
	return nil
}

func (r *run) report(l Letter) {
	if r.cfg.Report != nil {
		r.cfg.Report(l)
	}
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
		if !header.Owned(h.Key) {
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

// Error lists the dead letters Run skipped: their source record is gone and
// the dead letter holds only a masked or withheld value, or their command
// was redriven Config.MaxRedrives times.
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
