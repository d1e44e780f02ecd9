package redrive

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
)

func TestFilter(t *testing.T) {
	at := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	r := &kgo.Record{Key: []byte("key-1"), Timestamp: at, Headers: []kgo.RecordHeader{header.New(header.ErrorCode, "invalid_field")}}
	dl := &codec.DeadLetter{OriginalTopic: src}
	for _, c := range []struct {
		name string
		f    Filter
		want bool
	}{
		{"zero selects all", Filter{}, true},
		{"source topic", Filter{SourceTopic: src}, true},
		{"other source topic", Filter{SourceTopic: "other"}, false},
		{"key", Filter{Key: "key-1"}, true},
		{"other key", Filter{Key: "key-2"}, false},
		{"error code among", Filter{ErrorCodes: []string{"x", "invalid_field"}}, true},
		{"other error code", Filter{ErrorCodes: []string{"x"}}, false},
		{"since, inclusive", Filter{Since: at}, true},
		{"since later", Filter{Since: at.Add(time.Second)}, false},
		{"until, exclusive", Filter{Until: at}, false},
		{"until later", Filter{Until: at.Add(time.Second)}, true},
		{"all fields", Filter{SourceTopic: src, Key: "key-1", ErrorCodes: []string{"invalid_field"}, Since: at, Until: at.Add(time.Hour)}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.f.Matches(r, dl); got != c.want {
				t.Errorf("Matches = %v; want %v", got, c.want)
			}
		})
	}
}
