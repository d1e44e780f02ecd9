package pipeline

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// TestWriteHealth: readiness fails naming the topic at the first abort the
// topic itself caused, and the pipeline stops calling the API after the
// threshold of consecutive aborts by one topic; a commit clears both.
func TestWriteHealth(t *testing.T) {
	now := time.Unix(0, 0)
	missing := &topicError{Topic: "payments.command-results", Err: kerr.UnknownTopicOrPartition}
	timeout := &topicError{Topic: "payments.command-results", Err: errors.New("request timed out")}
	tests := []struct {
		name        string
		errs        []error
		wantBlocked bool
		wantReady   bool
	}{
		{"nothing failed", nil, false, true},
		{"a passing timeout", []error{timeout}, false, true},
		{"a missing topic fails readiness at once", []error{missing}, false, false},
		{"three aborts by one topic block", []error{timeout, timeout, timeout}, true, false},
		{"aborts by different topics do not add up", []error{timeout, &topicError{Topic: "other", Err: errors.New("x")}, timeout}, false, true},
		{"an error without a topic is not counted", []error{errors.New("encode"), errors.New("encode"), errors.New("encode")}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &writeHealth{threshold: 3}
			blocked := false
			for _, err := range tt.errs {
				blocked = h.failed(err)
			}
			if blocked != tt.wantBlocked || (h.blockedTopic() != "") != tt.wantBlocked {
				t.Errorf("blocked = %v (%q), want %v", blocked, h.blockedTopic(), tt.wantBlocked)
			}
			err := h.check(now)
			if (err == nil) != tt.wantReady {
				t.Fatalf("check = %v, want ready %v", err, tt.wantReady)
			}
			if err != nil && !strings.Contains(err.Error(), "payments.command-results") {
				t.Errorf("check = %v, does not name the topic", err)
			}
			h.committed()
			if err := h.check(now); err != nil || h.blockedTopic() != "" {
				t.Errorf("after a commit: check = %v, blocked %q", err, h.blockedTopic())
			}
		})
	}
}
