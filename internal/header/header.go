// Package header is the connector's own Kafka record headers: their names,
// and how they are read and written. The pipeline writes them on the
// records it re-publishes (retry records, dead letters) and reads them back;
// redrive writes the ones that let a redriven command keep its age. Both
// import this one small place so that the names and the rule for a
// record's original time exist once.
package header

import (
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Names of the headers the connector owns.
const (
	// RecordTime is the original record time (Unix milliseconds). The
	// key-lifetime guard uses it instead of the record timestamp when
	// present (see OriginalTime), so a parked or redriven command keeps its
	// age.
	RecordTime = "paysession-record-time"
	// Key is the idempotency key of a parked command (retry records are
	// keyed by session id to keep a session's commands in one partition).
	Key = "paysession-key"
	// Kind is the command kind of a parked or dead-lettered command.
	Kind = "paysession-kind"
	// SourceTopic, SourcePartition and SourceOffset name the record as it
	// was first consumed.
	SourceTopic     = "paysession-source-topic"
	SourcePartition = "paysession-source-partition"
	SourceOffset    = "paysession-source-offset"
	// Attempts counts API attempts made so far.
	Attempts = "paysession-attempts"
	// NextAttempt is the earliest time of the next attempt (RFC 3339).
	NextAttempt = "paysession-next-attempt"
	// FirstAttempt is the time of the first attempt (RFC 3339).
	FirstAttempt = "paysession-first-attempt"
	// Sent is "true" when some earlier attempt may have reached the
	// service, which makes a later give-up indeterminate rather than
	// rejected.
	Sent = "paysession-sent"
	// FirstSeen is when the connector first consumed a parked command
	// (RFC 3339): an input of the key-lifetime guard.
	FirstSeen = "paysession-first-seen"
	// DecodeFailures counts transient decode failures (schema registry
	// errors) of a parked command; past a budget it is dead-lettered.
	DecodeFailures = "paysession-decode-failures"
	// Redrive names the dead letter a redriven command came from
	// (topic/partition/offset). Only on such records, and on retry records,
	// does RecordTime count.
	Redrive = "paysession-redrive"
	// Redriven marks a redrive marker on the dead-letter topic: a record
	// with no value, written in the transaction that re-published a dead
	// letter, naming that letter ("partition/offset" on the dead-letter
	// topic). A redrive run skips the letters a marker names, so each is
	// redriven once without any consumer-group state.
	Redriven = "paysession-redriven"
	// RedriveCount counts how many times a command was redriven. Redrive
	// writes it on the command it re-publishes, the pipeline carries it to
	// the command's dead letter, and redrive refuses a letter whose count
	// reached its limit, so a command that keeps failing cannot loop.
	RedriveCount = "paysession-redrive-count"
	// Lane is the lane (session) of a parked command, so that the set of
	// parked commands can be rebuilt from the retry topic.
	Lane = "paysession-lane"
	// Error, ErrorField and ErrorCode describe why a record went to the
	// dead-letter topic.
	Error      = "paysession-error"
	ErrorField = "paysession-error-field"
	ErrorCode  = "paysession-error-code"
	// ConnectTopic, ConnectPartition, ConnectOffset and ConnectMessage are
	// Kafka Connect's dead-letter header names, written beside the
	// connector's own on dead letters so that generic dead-letter viewers
	// understand them: the source record's topic, partition and offset,
	// and the error (scrubbed, as Error).
	ConnectTopic     = "__connect.errors.topic"
	ConnectPartition = "__connect.errors.partition"
	ConnectOffset    = "__connect.errors.offset"
	ConnectMessage   = "__connect.errors.exception.message"
	// DeadLetterValue says what a dead letter's original_value holds:
	// "original" (the command's bytes), "masked" (card numbers keep bin and
	// last4, security codes are "***"; masked header values count too) or
	// "withheld" (empty: the value could not be read reliably). Redrive
	// reads the original bytes from the source record.
	DeadLetterValue = "paysession-dlq-value"
	// DeadLetterOriginalSize is the size in bytes of the command's value on
	// a dead letter whose value was withheld because the letter would not
	// fit the dead-letter topic's max.message.bytes.
	DeadLetterOriginalSize = "paysession-dlq-original-size"
	// DeadLetterHeaders, among a dead letter's original headers, says they
	// were withheld ("withheld") because the letter would not fit.
	DeadLetterHeaders = "paysession-dlq-headers"
	// Withheld, on a record the connector writes, names the member left
	// out because the record would not fit its topic's max.message.bytes:
	// "metadata" (every operation's) on a session update, the sessions
	// record written from it or a webhook event; "error_description" on a
	// command result (outbound.Sizer).
	Withheld = "paysession-withheld"
)

// Owned reports whether a header is one the connector owns, and so rewrites
// rather than copies when it re-publishes a record.
func Owned(k string) bool {
	switch k {
	case RecordTime, Key, Kind, SourceTopic, SourcePartition, SourceOffset, Attempts, NextAttempt,
		FirstAttempt, Sent, Error, ErrorField, ErrorCode, Lane, DeadLetterValue, FirstSeen,
		DecodeFailures, Redrive, Redriven, RedriveCount, DeadLetterOriginalSize, DeadLetterHeaders, Withheld,
		ConnectTopic, ConnectPartition, ConnectOffset, ConnectMessage:
		return true
	}
	return false
}

// Foreign returns the record's headers minus the connector's own.
func Foreign(r *kgo.Record) []kgo.RecordHeader {
	var out []kgo.RecordHeader
	for _, h := range r.Headers {
		if !Owned(h.Key) {
			out = append(out, h)
		}
	}
	return out
}

// Carried returns the headers of a command's source record that stay with
// the command when the connector reads it back (a parked command from its
// source, see the pipeline's resolveParked): the producer's (Foreign) and
// the redrive's provenance (Redrive, RedriveCount), which no retry record
// copies. Without the count a redriven command that was parked and then
// dead-lettered would start its redrive limit over.
func Carried(r *kgo.Record) []kgo.RecordHeader {
	out := Foreign(r)
	for _, h := range r.Headers {
		if h.Key == Redrive || h.Key == RedriveCount {
			out = append(out, h)
		}
	}
	return out
}

// OriginalTime is the time a command's age counts from: its record time,
// or the RecordTime header's when that is earlier and the record carries
// the connector's provenance (parked is true for a record of the retry
// topic; a redriven record carries Redrive). The header counts only there,
// and only to make a record older: a producer cannot make a command look
// younger than its own timestamp and so move the key-lifetime guard.
func OriginalTime(r *kgo.Record, parked bool) time.Time {
	if _, redriven := Get(r, Redrive); !parked && !redriven {
		return r.Timestamp
	}
	if ms, ok := Int(r, RecordTime); ok && (r.Timestamp.IsZero() || time.UnixMilli(ms).Before(r.Timestamp)) {
		return time.UnixMilli(ms)
	}
	return r.Timestamp
}

// Get returns the value of the first header named k.
func Get(r *kgo.Record, k string) (string, bool) {
	for _, h := range r.Headers {
		if h.Key == k {
			return string(h.Value), true
		}
	}
	return "", false
}

// Int returns the first header named k as a decimal integer.
func Int(r *kgo.Record, k string) (int64, bool) {
	v, ok := Get(r, k)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// Time returns the first header named k as an RFC 3339 time.
func Time(r *kgo.Record, k string) (time.Time, bool) {
	v, ok := Get(r, k)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	return t, err == nil
}

// New returns the header k: v.
func New(k, v string) kgo.RecordHeader { return kgo.RecordHeader{Key: k, Value: []byte(v)} }

// NewInt returns the header k with v in decimal.
func NewInt(k string, v int64) kgo.RecordHeader { return New(k, strconv.FormatInt(v, 10)) }

// NewTime returns the header k with t in RFC 3339 (UTC).
func NewTime(k string, t time.Time) kgo.RecordHeader {
	return New(k, t.UTC().Format(time.RFC3339Nano))
}
