package pipeline

import (
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Header names the pipeline writes on retry, dead-letter and redriven records.
const (
	// HeaderRecordTime is the original record time (Unix milliseconds). The
	// key-lifetime guard uses it instead of the record timestamp when present,
	// so a parked or redriven command keeps its age.
	HeaderRecordTime = "paysession-record-time"
	// HeaderKey is the idempotency key of a parked command (retry records are
	// keyed by session id to keep a session's commands in one partition).
	HeaderKey = "paysession-key"
	// HeaderKind is the command kind of a parked or dead-lettered command.
	HeaderKind = "paysession-kind"
	// HeaderSourceTopic, HeaderSourcePartition and HeaderSourceOffset name the
	// record as it was first consumed.
	HeaderSourceTopic     = "paysession-source-topic"
	HeaderSourcePartition = "paysession-source-partition"
	HeaderSourceOffset    = "paysession-source-offset"
	// HeaderAttempts counts API attempts made so far.
	HeaderAttempts = "paysession-attempts"
	// HeaderNextAttempt is the earliest time of the next attempt (RFC 3339).
	HeaderNextAttempt = "paysession-next-attempt"
	// HeaderFirstAttempt is the time of the first attempt (RFC 3339).
	HeaderFirstAttempt = "paysession-first-attempt"
	// HeaderSent is "true" when some earlier attempt may have reached the
	// service, which makes a later give-up indeterminate rather than rejected.
	HeaderSent = "paysession-sent"
	// HeaderFirstSeen is when the connector first consumed a parked command
	// (RFC 3339): an input of the key-lifetime guard.
	HeaderFirstSeen = "paysession-first-seen"
	// HeaderDecodeFailures counts transient decode failures (schema registry
	// errors) of a parked command; past a budget it is dead-lettered.
	HeaderDecodeFailures = "paysession-decode-failures"
	// HeaderRedrive names the dead letter a redriven command came from
	// (topic/partition/offset). Only on such records, and on retry records,
	// does HeaderRecordTime count.
	HeaderRedrive = "paysession-redrive"
	// HeaderLane is the lane (session) of a parked command, so that the set
	// of parked commands can be rebuilt from the retry topic.
	HeaderLane = "paysession-lane"
	// HeaderError, HeaderErrorField and HeaderErrorCode describe why a record
	// went to the dead-letter topic.
	HeaderError      = "paysession-error"
	HeaderErrorField = "paysession-error-field"
	HeaderErrorCode  = "paysession-error-code"
	// HeaderDeadLetterValue says what a dead letter's original_value holds:
	// "original" (the command's bytes), "masked" (card numbers keep bin and
	// last4, security codes are "***"; masked header values count too) or
	// "withheld" (empty: the value could not be read reliably). Redrive reads
	// the original bytes from the source record.
	HeaderDeadLetterValue = "paysession-dlq-value"
	// HeaderDeadLetterOriginalSize is the size in bytes of the command's
	// value on a dead letter whose value was withheld because the letter
	// would not fit the dead-letter topic's max.message.bytes.
	HeaderDeadLetterOriginalSize = "paysession-dlq-original-size"
	// HeaderDeadLetterHeaders, among a dead letter's original headers, says
	// they were withheld ("withheld") because the letter would not fit.
	HeaderDeadLetterHeaders = "paysession-dlq-headers"
)

// isPipelineHeader reports whether a header is one the pipeline owns (and so
// rewrites rather than copies when it re-publishes a record).
func isPipelineHeader(k string) bool {
	switch k {
	case HeaderRecordTime, HeaderKey, HeaderKind, HeaderSourceTopic, HeaderSourcePartition,
		HeaderSourceOffset, HeaderAttempts, HeaderNextAttempt, HeaderFirstAttempt, HeaderSent,
		HeaderError, HeaderErrorField, HeaderErrorCode, HeaderLane, HeaderDeadLetterValue, HeaderFirstSeen,
		HeaderDecodeFailures, HeaderRedrive, HeaderDeadLetterOriginalSize, HeaderDeadLetterHeaders:
		return true
	}
	return false
}

func header(r *kgo.Record, k string) (string, bool) {
	for _, h := range r.Headers {
		if h.Key == k {
			return string(h.Value), true
		}
	}
	return "", false
}

func headerInt(r *kgo.Record, k string) (int64, bool) {
	v, ok := header(r, k)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

func headerTime(r *kgo.Record, k string) (time.Time, bool) {
	v, ok := header(r, k)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	return t, err == nil
}

// foreignHeaders returns the record's headers minus the pipeline's own.
func foreignHeaders(r *kgo.Record) []kgo.RecordHeader {
	var out []kgo.RecordHeader
	for _, h := range r.Headers {
		if !isPipelineHeader(h.Key) {
			out = append(out, h)
		}
	}
	return out
}

func hdr(k, v string) kgo.RecordHeader { return kgo.RecordHeader{Key: k, Value: []byte(v)} }

func hdrInt(k string, v int64) kgo.RecordHeader { return hdr(k, strconv.FormatInt(v, 10)) }

func hdrTime(k string, t time.Time) kgo.RecordHeader {
	return hdr(k, t.UTC().Format(time.RFC3339Nano))
}
