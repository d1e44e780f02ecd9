package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/trace"

	"github.com/paysession/paysession/internal/codec"
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

	decoded   bool
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
		recordTime: r.Timestamp,
		fromRetry:  fromRetry,
	}
	// The original-time header counts only on records that carry the
	// connector's provenance (parked in the retry topic, or redriven), and
	// only to make a record older: a producer cannot make a command look
	// younger than its own timestamp and so move the key-lifetime guard.
	if _, redriven := header(r, HeaderRedrive); fromRetry || redriven {
		if ms, ok := headerInt(r, HeaderRecordTime); ok && (r.Timestamp.IsZero() || time.UnixMilli(ms).Before(r.Timestamp)) {
			in.recordTime = time.UnixMilli(ms)
		}
	}
	if !fromRetry {
		return in
	}
	in.firstSeen, _ = headerTime(r, HeaderFirstSeen)
	if n, ok := headerInt(r, HeaderDecodeFailures); ok {
		in.retry.decodeFailures = int(n)
	}
	if v, ok := header(r, HeaderKind); ok {
		in.kind = v
	}
	if v, ok := header(r, HeaderKey); ok {
		in.key = v
	}
	if v, ok := header(r, HeaderSourceTopic); ok {
		in.src.Topic = v
	}
	if n, ok := headerInt(r, HeaderSourcePartition); ok {
		in.src.Partition = int32(n)
	}
	if n, ok := headerInt(r, HeaderSourceOffset); ok {
		in.src.Offset = n
	}
	if n, ok := headerInt(r, HeaderAttempts); ok {
		in.retry.attempts = int(n)
	}
	in.retry.firstAttempt, _ = headerTime(r, HeaderFirstAttempt)
	in.retry.nextAttempt, _ = headerTime(r, HeaderNextAttempt)
	v, _ := header(r, HeaderSent)
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

// outcomeKey is the key the command's outcome records carry: OutcomeKey of
// its idempotency key.
func (in *inbound) outcomeKey() string { return OutcomeKey(in.key) }

// OutcomeKey is the key a command's outcome records carry (result key and
// idempotency_key, dead-letter key and original_key): the idempotency key
// when it is valid. An invalid key is never published as it is — it may be
// a card number, or megabytes long — but as "sha256:" and the first 12 bytes
// of its SHA-256 in hex, which a producer can compute to find the result of
// its record.
func OutcomeKey(key string) string {
	if codec.ValidateIdempotencyKey(key) == nil {
		return key
	}
	sum := sha256.Sum256([]byte(key))
	return "sha256:" + hex.EncodeToString(sum[:12])
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
