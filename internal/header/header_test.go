package header

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestOriginalTime: the RecordTime header counts only on records with the
// connector's provenance (parked, or redriven), and only to make a record
// older than its own timestamp.
func TestOriginalTime(t *testing.T) {
	ts := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	older, younger := ts.Add(-20*time.Hour), ts.Add(time.Hour)
	rec := func(hs ...kgo.RecordHeader) *kgo.Record { return &kgo.Record{Timestamp: ts, Headers: hs} }
	tests := []struct {
		name   string
		r      *kgo.Record
		parked bool
		want   time.Time
	}{
		{"plain record", rec(), false, ts},
		{"header without provenance is ignored", rec(NewInt(RecordTime, older.UnixMilli())), false, ts},
		{"parked record keeps its age", rec(NewInt(RecordTime, older.UnixMilli())), true, older},
		{"redriven record keeps its age", rec(NewInt(RecordTime, older.UnixMilli()), New(Redrive, "dlq/0/7")), false, older},
		{"never younger than the timestamp", rec(NewInt(RecordTime, younger.UnixMilli()), New(Redrive, "dlq/0/7")), false, ts},
		{"unreadable header is ignored", rec(New(RecordTime, "yesterday")), true, ts},
	}
	for _, tc := range tests {
		if got := OriginalTime(tc.r, tc.parked); !got.Equal(tc.want) {
			t.Errorf("%s: OriginalTime = %v; want %v", tc.name, got, tc.want)
		}
	}
}

// TestForeign: re-publishing keeps a producer's headers and drops the
// connector's own, which it writes anew.
func TestForeign(t *testing.T) {
	r := &kgo.Record{Headers: []kgo.RecordHeader{New("traceparent", "00-ab"), NewInt(Attempts, 3),
		New(DeadLetterValue, "masked"), New("tenant", "t1")}}
	got := Foreign(r)
	if len(got) != 2 || got[0].Key != "traceparent" || got[1].Key != "tenant" {
		t.Errorf("Foreign = %v; want traceparent and tenant", got)
	}
}

// TestRoundTrip: what New* writes, Get, Int and Time read back.
func TestRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 23, 9, 30, 0, 123, time.FixedZone("x", 3600))
	r := &kgo.Record{Headers: []kgo.RecordHeader{NewInt(Attempts, 42), NewTime(NextAttempt, at), New(Kind, "capture")}}
	if n, ok := Int(r, Attempts); !ok || n != 42 {
		t.Errorf("Int = %d, %v", n, ok)
	}
	if v, ok := Time(r, NextAttempt); !ok || !v.Equal(at) {
		t.Errorf("Time = %v, %v; want %v", v, ok, at)
	}
	if v, ok := Get(r, Kind); !ok || v != "capture" {
		t.Errorf("Get = %q, %v", v, ok)
	}
	if _, ok := Get(r, Sent); ok {
		t.Error("Get found a header that is not there")
	}
}
