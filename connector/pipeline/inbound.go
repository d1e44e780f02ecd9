package pipeline

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/trace"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
)

// source names a command record as it was first consumed.
type source struct {
	Topic     string
	Partition int32
	Offset    int64
}

// retryState is what a command carries from earlier attempts (from the retry
// topic's headers; zero for a fresh command).
type retryState struct {
	attempts       int
	firstAttempt   time.Time
	nextAttempt    time.Time
	sent           bool
	decodeFailures int // transient decode failures (schema registry) so far
}

// inbound is one polled command record as the data path sees it.
type inbound struct {
	rec        *kgo.Record
	kind       string
	key        string // idempotency key
	src        source
	recordTime time.Time // original record time: an input of the key-lifetime guard
	firstSeen  time.Time // when the connector first consumed the command (zero: now)
	fromRetry  bool
	retry      retryState
	// neverAttempted is proof that no API call for this command can have
	// started before this batch: no earlier attempt is recorded, and its
	// consumed offset lies past every offset the pipeline ever marked as
	// attempted (attempts.go). Only then may an expired command be
	// reported as "not sent".
	neverAttempted bool

	// What read made of it (decode.go): the command, or why there is none.
	cmd       *command
	decodeErr error

	span trace.Span // the consume span (trace.go); nil in tests that build an inbound by hand
}

// newInbound reads a record from a command topic (kind known from the topic)
// or from the retry topic (kind and origin from its headers).
func newInbound(r *kgo.Record, kind string, fromRetry bool) *inbound {
	in := &inbound{
		rec:        r,
		kind:       kind,
		key:        string(r.Key),
		src:        source{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset},
		recordTime: header.OriginalTime(r, fromRetry),
		fromRetry:  fromRetry,
	}
	if !fromRetry {
		return in
	}
	in.firstSeen, _ = header.Time(r, header.FirstSeen)
	if n, ok := header.Int(r, header.DecodeFailures); ok {
		in.retry.decodeFailures = int(n)
	}
	if v, ok := header.Get(r, header.Kind); ok {
		in.kind = v
	}
	if v, ok := header.Get(r, header.Key); ok {
		in.key = v
	}
	if v, ok := header.Get(r, header.SourceTopic); ok {
		in.src.Topic = v
	}
	if n, ok := header.Int(r, header.SourcePartition); ok {
		in.src.Partition = int32(n)
	}
	if n, ok := header.Int(r, header.SourceOffset); ok {
		in.src.Offset = n
	}
	if n, ok := header.Int(r, header.Attempts); ok {
		in.retry.attempts = int(n)
	}
	in.retry.firstAttempt, _ = header.Time(r, header.FirstAttempt)
	in.retry.nextAttempt, _ = header.Time(r, header.NextAttempt)
	v, _ := header.Get(r, header.Sent)
	in.retry.sent = v == "true"
	return in
}

// age is the command's age for the key-lifetime guard: now minus the
// earliest of its record time, first attempt and first seen time; a time in
// the future counts as now.
func (in *inbound) age(now time.Time) time.Duration {
	earliest := now
	for _, t := range []time.Time{in.recordTime, in.retry.firstAttempt, in.firstSeen} {
		if !t.IsZero() && t.Before(earliest) {
			earliest = t
		}
	}
	return now.Sub(earliest)
}

// outcomeKey is the key the command's outcome records carry: codec.OutcomeKeyAt of
// its idempotency key.
func (in *inbound) outcomeKey() string {
	return codec.OutcomeKeyAt(in.key, codec.Position{Topic: in.src.Topic, Partition: in.src.Partition, Offset: in.src.Offset})
}

// laneKey is the key that serializes commands: the session id when the
// command names one, else the idempotency key (the command runs alone).
func (in *inbound) laneKey() string {
	if in.cmd != nil && in.cmd.SessionID != "" {
		return "s:" + in.cmd.SessionID
	}
	return "k:" + in.key
}

// sessionID is the session the command names, if any.
func (in *inbound) sessionID() string {
	if in.cmd != nil {
		return in.cmd.SessionID
	}
	return ""
}
