package sessionwriter

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// jsonCodec stands in for the Avro codec: records are JSON.
type jsonCodec struct{}

func (jsonCodec) DecodeRecord(_ context.Context, value []byte, v codec.Record) error {
	return json.Unmarshal(value, v)
}

func (jsonCodec) Encode(_ context.Context, _ string, rec codec.Record) ([]byte, error) {
	return json.Marshal(rec)
}

// testWriter returns a writer whose clock reads *now (t0 + 1h when nil).
func testWriter(t *testing.T, now *time.Time) *Writer {
	t.Helper()
	if now == nil {
		at := t0.Add(time.Hour)
		now = &at
	}
	w, err := New(Config{Kafka: []kgo.Opt{kgo.SeedBrokers("127.0.0.1:1")}, GroupID: "g", TransactionalID: "t",
		UpdatesTopic: "u", SessionsTopic: "s", EventsTopic: "e", Decoder: jsonCodec{}, Encoder: jsonCodec{},
		Clock: func() time.Time { return *now }})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

var t0 = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

// update builds an update record of session ps_1 at updated_at t0+min.
func update(t *testing.T, min int, status string, headers ...kgo.RecordHeader) *kgo.Record {
	t.Helper()
	at := t0.Add(time.Duration(min) * time.Minute)
	st := codec.SessionState{Session: codec.Session{ID: "ps_1", Status: status, UpdatedAt: &at}, Source: codec.SourceWebhook}
	v, err := json.Marshal(&st)
	if err != nil {
		t.Fatal(err)
	}
	r := Update("u", "ps_1", v, headers...)
	r.Partition, r.Timestamp = 2, at
	return r
}

func eventHeader(id string) kgo.RecordHeader {
	return kgo.RecordHeader{Key: HeaderEventID, Value: []byte(id)}
}

func TestDeriveWritesOnlyNewerStatesAndEachEventOnce(t *testing.T) {
	w := testWriter(t, nil)
	part := newPartition()
	var j journal
	steps := []struct {
		name      string
		rec       *kgo.Record
		result    string
		wantState bool
		wantEvent bool
	}{
		{"first state", update(t, 1, "in_progress", eventHeader("e1")), resultWritten, true, true},
		{"newer state", update(t, 5, "accepted", eventHeader("e2")), resultWritten, true, true},
		{"replayed old webhook: no state, no event", update(t, 1, "in_progress", eventHeader("e1")), resultOlder, false, false},
		{"old webhook never seen: its event, not its state", update(t, 2, "in_progress", eventHeader("e0")), resultOlder, false, true},
		{"same version again", update(t, 5, "accepted"), resultOlder, false, false},
		{"same version, republish", update(t, 5, "accepted", kgo.RecordHeader{Key: HeaderRepublish, Value: []byte("1")}), resultRepublished, true, false},
		{"older version, republish", update(t, 4, "accepted", kgo.RecordHeader{Key: HeaderRepublish, Value: []byte("1")}), resultOlder, false, false},
	}
	for _, s := range steps {
		d, err := w.derive(context.Background(), s.rec, part, &j, w.cutoffs())
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if d.result != s.result || (d.state != nil) != s.wantState || (d.event != nil) != s.wantEvent {
			t.Fatalf("%s: result %s, state %v, event %v; want %s, %v, %v", s.name, d.result, d.state != nil, d.event != nil,
				s.result, s.wantState, s.wantEvent)
		}
		if d.state != nil {
			if d.state.Topic != "s" || d.state.Partition != 2 || string(d.state.Key) != "ps_1" {
				t.Fatalf("%s: state record to %s/%d key %s, want s/2 key ps_1", s.name, d.state.Topic, d.state.Partition, d.state.Key)
			}
			for _, h := range d.state.Headers {
				if h.Key == HeaderRepublish {
					t.Fatalf("%s: internal header %s carried onto the sessions topic", s.name, h.Key)
				}
			}
		}
		if d.event != nil {
			var ev codec.WebhookEvent
			if err := json.Unmarshal(d.event.Value, &ev); err != nil || ev.SessionID != "ps_1" || d.event.Topic != "e" || d.event.Partition != 2 {
				t.Fatalf("%s: event record %s/%d %+v (%v)", s.name, d.event.Topic, d.event.Partition, ev, err)
			}
		}
	}
}

func TestJournalUndoRestoresTheIndex(t *testing.T) {
	w := testWriter(t, nil)
	part := newPartition()
	var committed journal
	if _, err := w.derive(context.Background(), update(t, 1, "in_progress", eventHeader("e1")), part, &committed, w.cutoffs()); err != nil {
		t.Fatal(err)
	}
	var aborted journal
	for _, r := range []*kgo.Record{update(t, 5, "accepted", eventHeader("e2")), update(t, 6, "accepted", eventHeader("e3"))} {
		if _, err := w.derive(context.Background(), r, part, &aborted, w.cutoffs()); err != nil {
			t.Fatal(err)
		}
	}
	aborted.undo()
	if v, _ := part.versions.get("ps_1"); !v.stamp.UpdatedAt().Equal(t0.Add(time.Minute)) {
		t.Fatalf("after undo the version is %v, want the committed one (t0+1m)", v.stamp.UpdatedAt())
	}
	if part.events.seen("e2", 0) {
		t.Fatal("after undo event e2 is still remembered")
	}
	// The aborted updates are consumed again and written then.
	var retry journal
	d, err := w.derive(context.Background(), update(t, 5, "accepted", eventHeader("e2")), part, &retry, w.cutoffs())
	if err != nil || d.state == nil || d.event == nil {
		t.Fatalf("redelivered update after abort: state %v, event %v, err %v; want both written", d.state != nil, d.event != nil, err)
	}
}

func TestEventIDsExpireAfterTheWindow(t *testing.T) {
	p := newPartition()
	p.events.add("old", t0.UnixMilli())
	p.events.add("new", t0.Add(2*time.Hour).UnixMilli())
	cutoff := t0.Add(time.Hour).UnixMilli()
	if p.events.seen("old", cutoff) || !p.events.seen("new", cutoff) {
		t.Fatal("seen: an id older than the cutoff must count as forgotten before the sweep, a newer one as seen")
	}
	p.events.sweep(cutoff)
	if _, ok := p.events.at[keyOfEvent("old")]; ok {
		t.Fatal("event id older than the cutoff still held after the sweep")
	}
	if !p.events.seen("new", cutoff) {
		t.Fatal("event id newer than the cutoff forgotten")
	}
}
