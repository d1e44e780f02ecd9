package topics

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want Problem
	}{
		{"nil", nil, Transient},
		{"topic missing", kerr.UnknownTopicOrPartition, TopicUnavailable},
		{"topic recreated", kerr.UnknownTopicID, TopicUnavailable},
		{"topic id mismatch", kerr.InconsistentTopicID, TopicUnavailable},
		{"write not authorized", kerr.TopicAuthorizationFailed, TopicUnavailable},
		{"invalid topic name", kerr.InvalidTopicException, TopicUnavailable},
		{"kadm auth error", &kadm.AuthError{Err: kerr.TopicAuthorizationFailed}, TopicUnavailable},
		// kgo: a record timing out while its topic stayed unknown.
		{"timeout with last err", fmt.Errorf("%w, last err: %w", kgo.ErrRecordTimeout, kerr.UnknownTopicOrPartition), TopicUnavailable},
		// kgo txn.go: a transaction that produced to a topic deleted and recreated.
		{"recreated in transaction", fmt.Errorf("the transaction produced to [x] before the topic was deleted and recreated: %w, %w", kerr.TransactionAbortable, kerr.UnknownTopicID), TopicUnavailable},
		{"wrapped by the caller", fmt.Errorf("produce result of %s: %w", "k1", kerr.UnknownTopicOrPartition), TopicUnavailable},
		{"broker refuses size", fmt.Errorf("%w (uncompressed_bytes=%d, compressed_bytes=%d)", kerr.MessageTooLarge, 2<<20, 2<<20), RecordRefused},
		{"client refuses size", fmt.Errorf("%w (uncompressed_bytes=%d)", kerr.MessageTooLarge, 2<<20), RecordRefused},
		{"batch too large for segment", kerr.RecordListTooLarge, RecordRefused},
		{"invalid record", kerr.InvalidRecord, RecordRefused},
		{"null key on compacted topic (old broker)", kerr.CorruptMessage, RecordRefused},
		{"timestamp out of range", kerr.InvalidTimestamp, RecordRefused},
		{"policy", kerr.PolicyViolation, RecordRefused},
		{"message format", kerr.UnsupportedForMessageFormat, RecordRefused},
		{"compression", kerr.UnsupportedCompressionType, RecordRefused},
		{"retries exhausted, cause unknown", kgo.ErrRecordRetries, Transient},
		{"timeout, cause unknown", kgo.ErrRecordTimeout, Transient},
		{"timeout after a leader move", fmt.Errorf("%w, last err: %w", kgo.ErrRecordTimeout, kerr.NotLeaderForPartition), Transient},
		{"not enough replicas", kerr.NotEnoughReplicas, Transient},
		{"fenced", kerr.ProducerFenced, Transient},
		{"transaction abortable alone", kerr.TransactionAbortable, Transient},
		{"aborting", kgo.ErrAborting, Transient},
		{"context", context.DeadlineExceeded, Transient},
		{"other", errors.New("dial tcp: connection refused"), Transient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Classify(tc.err); got != tc.want {
				t.Errorf("Classify(%v) = %v, want %v", tc.err, got, tc.want)
			}
			if got, want := IsTopicProblem(tc.err), tc.want != Transient; got != want {
				t.Errorf("IsTopicProblem(%v) = %v, want %v", tc.err, got, want)
			}
		})
	}
}

func TestProblemString(t *testing.T) {
	for p, want := range map[Problem]string{Transient: "transient", TopicUnavailable: "topic_unavailable", RecordRefused: "record_refused"} {
		if got := p.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", p, got, want)
		}
	}
}
