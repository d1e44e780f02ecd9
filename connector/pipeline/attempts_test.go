package pipeline

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func TestParseMark(t *testing.T) {
	tests := []struct {
		key, value string
		ok         bool
		tp         topicPartition
		offset     int64
	}{
		{"payments.commands.capture/3", "1536", true, topicPartition{"payments.commands.capture", 3}, 1536},
		{"a/b/0", "0", true, topicPartition{"a/b", 0}, 0},
		{"no-partition", "1", false, topicPartition{}, 0},
		{"/1", "1", false, topicPartition{}, 0},
		{"t/x", "1", false, topicPartition{}, 0},
		{"t/1", "many", false, topicPartition{}, 0},
	}
	for _, tt := range tests {
		tp, off, ok := parseMark(&kgo.Record{Key: []byte(tt.key), Value: []byte(tt.value)})
		if ok != tt.ok || (ok && (tp != tt.tp || off != tt.offset)) {
			t.Errorf("parseMark(%q, %q) = %v %d %v, want %v %d %v", tt.key, tt.value, tp, off, ok, tt.tp, tt.offset, tt.ok)
		}
		if ok && tp.String() != tt.key {
			t.Errorf("%v.String() = %q, want %q", tp, tp.String(), tt.key)
		}
	}
}

// A batch's calls wait for its marks: the mark producer must not linger.
func TestAttemptMarksProducerDoesNotLinger(t *testing.T) {
	m := newAttemptMarks("attempts", 8, time.Second, []kgo.Opt{kgo.SeedBrokers("127.0.0.1:1")})
	if err := m.open(); err != nil {
		t.Fatal(err)
	}
	defer m.close()
	if got := m.producer.OptValue(kgo.ProducerLinger); got != time.Duration(0) {
		t.Errorf("mark producer linger = %v, want 0 (a write of marks is sent at once)", got)
	}
}
