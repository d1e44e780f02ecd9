package pipeline

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Attempt marks: the proof behind "expired, not sent".
//
// A command whose transaction never committed (a crash, an abort, an
// unknown commit, a rebalance) is consumed again as a fresh record, with
// nothing on it saying whether an earlier run already called the API. If it
// is by then older than the key-lifetime margin, "expired, not sent" would be
// a guess: upstream would re-issue it under a new key and could pay twice.
//
// So before any API call of a batch starts, the pipeline makes sure a
// durable mark covers the call: a record on the attempts topic (compacted,
// key "topic/partition" of the consumed record, value the highest offset of
// that partition whose call may have started), acknowledged by all in-sync
// replicas. A record whose offset lies past the mark of its partition as
// read back when the partition was taken over (at a session start, after an
// abort or a rebalance) can never have been attempted by anyone: only then
// is an expired command "not sent". Everything else is indeterminate.
//
// Marks run ahead of the offsets called by a lookahead (MaxPollRecords), so
// a mark is written about once per lookahead records of a partition, not per
// batch. The cost is that after a takeover, expired commands in the
// lookahead window count as possibly sent (indeterminate): the answer is
// then cautious, never false.

// attemptMarks keeps the marks of the partitions this pipeline consumes. It
// is used by the Run goroutine only.
type attemptMarks struct {
	topic     string
	lookahead int64
	producer  *kgo.Client // plain (non-transactional) client, acks=all
	opts      []kgo.Opt   // client options, for the reader
	// writeTimeout bounds a write of marks: franz-go retries a write the
	// broker does not acknowledge (NOT_ENOUGH_REPLICAS) for as long as that
	// lasts, and unbounded, the pipeline waited there calling nothing while
	// it looked ready. Past it the batch aborts uncalled and counts against
	// the attempts topic's write health (writes.go), which readiness reports.
	writeTimeout time.Duration

	loaded  bool                     // known holds what the topic said at the last load
	known   map[topicPartition]int64 // highest offset that may have been attempted
	durable map[topicPartition]int64 // highest offset covered by an acknowledged mark
}

type topicPartition struct {
	Topic     string
	Partition int32
}

func (tp topicPartition) String() string { return tp.Topic + "/" + strconv.Itoa(int(tp.Partition)) }

func newAttemptMarks(topic string, lookahead int, writeTimeout time.Duration, opts []kgo.Opt) *attemptMarks {
	return &attemptMarks{topic: topic, lookahead: int64(lookahead), writeTimeout: writeTimeout, opts: opts,
		known: map[topicPartition]int64{}, durable: map[topicPartition]int64{}}
}

// open builds the mark producer; close releases it. It sends at once: a
// write of marks is one ProduceSync that the batch's calls wait for, with
// nothing else on the client to batch it with, so franz-go's default linger
// (10 ms) was pure delay for every batch that wrote marks.
func (m *attemptMarks) open() error {
	cl, err := kgo.NewClient(append(append([]kgo.Opt{}, m.opts...), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.DefaultProduceTopic(m.topic), kgo.ProducerLinger(0))...)
	if err != nil {
		return fmt.Errorf("attempt marks producer: %w", err)
	}
	m.producer = cl
	return nil
}

func (m *attemptMarks) close() {
	if m.producer != nil {
		m.producer.Close()
		m.producer = nil
	}
}

// invalidate makes the next cover read the marks again (a session start, an
// abort, a rebalance: another instance may have marked our partitions).
func (m *attemptMarks) invalidate() { m.loaded = false }

// cover proves or disproves, for each command of the batch, that it was never
// attempted (inbound.neverAttempted), then writes the marks that cover every
// command the batch may call. It returns an error, naming the attempts topic,
// when the marks cannot be read or written: the batch must then not call the
// API at all.
func (m *attemptMarks) cover(ctx context.Context, ins []*inbound, mayCall func(*inbound) bool) error {
	if !m.loaded {
		if err := m.load(ctx); err != nil {
			return &topicError{Topic: m.topic, Err: err}
		}
	}
	need := map[topicPartition]int64{}
	for _, in := range ins {
		tp := topicPartition{in.rec.Topic, in.rec.Partition}
		at, marked := m.known[tp]
		in.neverAttempted = !in.retry.sent && (!marked || in.rec.Offset > at)
		if n, ok := need[tp]; mayCall(in) && (!ok || in.rec.Offset > n) {
			need[tp] = in.rec.Offset
		}
	}
	var marks []*kgo.Record
	for tp, off := range need {
		if d, ok := m.durable[tp]; !ok || off > d {
			marks = append(marks, &kgo.Record{Key: []byte(tp.String()), Value: strconv.AppendInt(nil, off+m.lookahead, 10)})
		}
	}
	if len(marks) > 0 {
		wctx, cancel := context.WithTimeout(ctx, m.writeTimeout)
		err := m.producer.ProduceSync(wctx, marks...).FirstErr()
		timedOut := wctx.Err() != nil && ctx.Err() == nil
		cancel()
		switch {
		case err != nil && timedOut:
			// The client retried a retriable refusal (e.g. fewer in-sync
			// replicas than min.insync.replicas) until the deadline; its
			// error is the deadline's.
			return &topicError{Topic: m.topic, Err: fmt.Errorf("write attempt marks: not acknowledged within %s: %w", m.writeTimeout, err)}
		case err != nil:
			return &topicError{Topic: m.topic, Err: fmt.Errorf("write attempt marks: %w", err)}
		}
		for tp, off := range need {
			m.durable[tp] = max(m.durable[tp], off+m.lookahead)
		}
	}
	for tp, off := range need {
		m.known[tp] = max(m.known[tp], off)
	}
	return nil
}

// load reads every mark of the attempts topic (from the start: it is
// compacted, one live record per consumed partition) up to its end offsets.
func (m *attemptMarks) load(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(append(append([]kgo.Opt{}, m.opts...),
		kgo.ConsumeTopics(m.topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(100*time.Millisecond))...)
	if err != nil {
		return fmt.Errorf("attempt marks reader: %w", err)
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, m.topic)
	if err != nil {
		return fmt.Errorf("read attempt marks: %w", err)
	}
	if err := ends.Error(); err != nil {
		return fmt.Errorf("read attempt marks: %w", err)
	}
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			want[o.Partition] = o.Offset
		}
	})
	marks := map[topicPartition]int64{}
	for len(want) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return fmt.Errorf("read attempt marks: %w", ctx.Err())
		}
		if err := fs.Err0(); err != nil {
			return fmt.Errorf("read attempt marks: %w", err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if tp, off, ok := parseMark(r); ok {
				marks[tp] = max(marks[tp], off)
			}
			if r.Offset+1 >= want[r.Partition] {
				delete(want, r.Partition)
			}
		})
	}
	m.known, m.durable = marks, make(map[topicPartition]int64, len(marks))
	for tp, off := range marks {
		m.durable[tp] = off
	}
	m.loaded = true
	return nil
}

// parseMark reads one mark record: key "topic/partition", value an offset.
func parseMark(r *kgo.Record) (topicPartition, int64, bool) {
	k := string(r.Key)
	i := strings.LastIndexByte(k, '/')
	if i <= 0 {
		return topicPartition{}, 0, false
	}
	p, err1 := strconv.ParseInt(k[i+1:], 10, 32)
	off, err2 := strconv.ParseInt(string(r.Value), 10, 64)
	if err1 != nil || err2 != nil {
		return topicPartition{}, 0, false
	}
	return topicPartition{k[:i], int32(p)}, off, true
}
