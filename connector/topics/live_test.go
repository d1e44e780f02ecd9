package topics

import (
	"testing"

	"github.com/paysession/paysession/internal/outbound"
)

// TestLiveNowIsASnapshot: what Now returned does not change with a later
// swap, and a topic whose configuration was not read has the default.
func TestLiveNowIsASnapshot(t *testing.T) {
	l := NewLive(Report{Topics: []TopicReport{
		{Topic: "a", Exists: true, ConfigsKnown: true, MaxMessageBytes: 4096},
		{Topic: "b", Exists: true},
	}})
	pinned := l.Now()
	next := limitSet{"a": 8192}
	l.cur.Store(&next)
	if got := pinned.MaxMessageBytes("a"); got != 4096 {
		t.Errorf("pinned a = %d, want 4096", got)
	}
	if got := l.MaxMessageBytes("a"); got != 8192 {
		t.Errorf("live a = %d, want 8192", got)
	}
	if got := l.MaxMessageBytes("b"); got != DefaultMaxMessageBytes {
		t.Errorf("b = %d, want the default", got)
	}
	if !outbound.Changed(pinned, outbound.Pin(l), "a") || outbound.Changed(pinned, outbound.Pin(l), "b") {
		t.Error("Changed does not see a's change alone")
	}
	if len(l.names) != 2 {
		t.Errorf("refreshes %v, want both topics", l.names)
	}
}
