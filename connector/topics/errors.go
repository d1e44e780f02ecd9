package topics

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Problem is the class of a produce error: whether producing the same thing
// again can succeed.
type Problem uint8

const (
	// Transient is a nil error or one that retrying may fix: a broker down,
	// a leader moving, a timeout without a known cause (kgo.ErrRecordTimeout
	// or kgo.ErrRecordRetries alone), a fenced or aborted transaction.
	Transient Problem = iota
	// TopicUnavailable means no record can be written to the topic: it does
	// not exist, was deleted (or deleted and recreated: the client keeps
	// failing with UNKNOWN_TOPIC_ID until it is rebuilt), or the principal
	// may not write to it. Runtime handling: stop new work, fail readiness
	// naming the topic, rebuild the client, and retry until it is back.
	TopicUnavailable
	// RecordRefused means the topic refuses this record (too large, invalid
	// for the topic, refused by a broker policy); other records may pass.
	// Sending it again cannot succeed: write something smaller instead (a
	// dead letter without its value), or dead-letter it.
	RecordRefused
)

// String returns the problem's name for logs and metrics labels.
func (p Problem) String() string {
	switch p {
	case TopicUnavailable:
		return "topic_unavailable"
	case RecordRefused:
		return "record_refused"
	default:
		return "transient"
	}
}

// topicErrors make a topic unwritable as a whole. UNKNOWN_TOPIC_OR_PARTITION
// and UNKNOWN_TOPIC_ID are retriable to Kafka, but franz-go fails a record
// with them only after UnknownTopicRetries metadata loads (default 4) saw the
// topic missing, or at once when the topic was recreated under a new ID.
var topicErrors = []error{
	kerr.UnknownTopicOrPartition,
	kerr.UnknownTopicID,
	kerr.InconsistentTopicID,
	kerr.TopicAuthorizationFailed,
	kerr.InvalidTopicException,
}

// recordErrors are the topic's refusals of one record. CORRUPT_MESSAGE is
// retriable to Kafka, but franz-go does not retry it when producing, and older
// brokers return it for a record without a key on a compacted topic.
var recordErrors = []error{
	kerr.MessageTooLarge,
	kerr.RecordListTooLarge,
	kerr.InvalidRecord,
	kerr.CorruptMessage,
	kerr.InvalidTimestamp,
	kerr.PolicyViolation,
	kerr.UnsupportedForMessageFormat,
	kerr.UnsupportedCompressionType,
}

// Classify returns the class of a produce (or transaction) error, looking
// through wrapping: franz-go wraps a record timeout's last error
// ("records have timed out ..., last err: UNKNOWN_TOPIC_OR_PARTITION") and a
// recreated topic in a transaction (TRANSACTION_ABORTABLE and
// UNKNOWN_TOPIC_ID), and kadm wraps authorization failures.
func Classify(err error) Problem {
	if err == nil {
		return Transient
	}
	for _, target := range topicErrors {
		if errors.Is(err, target) {
			return TopicUnavailable
		}
	}
	for _, target := range recordErrors {
		if errors.Is(err, target) {
			return RecordRefused
		}
	}
	return Transient
}

// IsTopicProblem reports whether err is one that retrying the same produce
// cannot fix, because of the topic (TopicUnavailable) or because the topic
// refuses the record (RecordRefused). The topic is the failed record's Topic.
func IsTopicProblem(err error) bool { return Classify(err) != Transient }
