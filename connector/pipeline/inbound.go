package pipeline

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
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
	attempts     int
	firstAttempt time.Time
	nextAttempt  time.Time
	sent         bool
}

// inbound is one polled command record as the data path sees it.
type inbound struct {
	rec        *kgo.Record
	kind       string
	key        string // idempotency key
	src        source
	recordTime time.Time // original record time: the key-lifetime guard's input
	fromRetry  bool
	retry      retryState

	decoded   bool
	cmd       *command
	decodeErr error
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
	if ms, ok := headerInt(r, HeaderRecordTime); ok {
		in.recordTime = time.UnixMilli(ms)
	}
	if !fromRetry {
		return in
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
