package pipeline

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKeptOutcomes: the final outcomes of an aborted batch are reused for
// the same records redelivered, not for parked ones, not for another record
// at the same position (a recreated topic), and not after a commit.
func TestKeptOutcomes(t *testing.T) {
	rec := func(key string, offset int64) *kgo.Record {
		return &kgo.Record{Topic: "payments.commands.capture", Partition: 1, Offset: offset, Key: []byte(key),
			Value: []byte(`{"session_id":"ps_1"}`), Timestamp: testNow}
	}
	done, parked := newInbound(rec("key-0001", 7), "capture", false), newInbound(rec("key-0002", 8), "capture", false)
	b := &batch{ins: []*inbound{done, parked}, outcomes: map[*inbound]*outcome{
		done:   {in: done, verdict: verdict{Status: "accepted"}, attempts: 1},
		parked: park(parked, retryState{}, false),
	}}
	k := keptOutcomes{}
	k.keep(b)

	again := newInbound(rec("key-0001", 7), "capture", false)
	if out := k.takeFor(again); out == nil || out.in != again || out.attempts != 1 {
		t.Fatalf("redelivered record: kept outcome %+v, want the aborted batch's, rebound", out)
	}
	if out := k.takeFor(newInbound(rec("key-0002", 8), "capture", false)); out != nil {
		t.Errorf("a parked command's outcome was kept: %+v", out)
	}
	if out := k.takeFor(newInbound(rec("key-9999", 7), "capture", false)); out != nil {
		t.Errorf("another record at the same position took the kept outcome")
	}
	k.keep(b)
	k.forget(&batch{ins: []*inbound{again}})
	if out := k.takeFor(again); out != nil {
		t.Errorf("outcome still kept after its batch committed")
	}
}
