package pipeline

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/topics"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
)

// TestDeadLetterFitsItsTopic: a dead letter that would not fit the
// dead-letter topic's max.message.bytes withholds the command's value (then
// its headers), says so in headers, and fits; results stay small whatever
// the command's key and error.
func TestDeadLetterFitsItsTopic(t *testing.T) {
	const limit = 4096
	big := `{"session_id":"` + strings.Repeat("x", 3*limit) + `"`
	tests := []struct {
		name        string
		value       string
		header      string // value of a foreign header
		protection  codec.ValueProtection
		headersKept bool
	}{
		{"small letter kept whole", `{"session_id":`, "h", codec.ValueOriginal, true},
		{"large value withheld", big, "h", codec.ValueWithheld, true},
		{"large value and headers withheld", big, strings.Repeat("h", 2*limit), codec.ValueWithheld, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newTestPipeline(t, &fakeAPI{}, func(c *Config) {
				c.Encoder = avroEncoder{}
				c.Sizer = sizerOf(t, topics.Report{Topics: []topics.TopicReport{{Topic: DefaultTopics().DeadLetter, Exists: true,
					ConfigsKnown: true, MaxMessageBytes: limit}}})
			})
			rec := &kgo.Record{Topic: p.cfg.Topics.Commands["capture"], Key: []byte("key-0001"), Value: []byte(tt.value),
				Timestamp: testNow, Headers: []kgo.RecordHeader{header.New("trace", tt.header)}}
			in := p.polled(rec, "capture", false)
			out := p.process(context.Background(), in)
			if out.verdict.Status != codec.StatusInvalid {
				t.Fatalf("status %s, want invalid", out.verdict.Status)
			}
			recs, err := p.outcomeRecords(context.Background(), out, testNow)
			if err != nil {
				t.Fatal(err)
			}
			var dl *kgo.Record
			for _, r := range recs {
				if n := topics.RecordBatchBytes(r); n > limit {
					t.Errorf("%s record of %d bytes exceeds %d", r.Topic, n, limit)
				}
				if r.Topic == p.cfg.Topics.DeadLetter {
					dl = r
				}
			}
			if dl == nil {
				t.Fatal("no dead letter")
			}
			if v, _ := header.Get(dl, header.DeadLetterValue); v != string(tt.protection) {
				t.Errorf("%s = %q, want %q", header.DeadLetterValue, v, tt.protection)
			}
			size, sized := header.Get(dl, header.DeadLetterOriginalSize)
			if withheld := tt.protection == codec.ValueWithheld; sized != withheld || (withheld && size != strconv.Itoa(len(tt.value))) {
				t.Errorf("%s = %q (present %v), want the value's size %d only when withheld", header.DeadLetterOriginalSize, size, sized, len(tt.value))
			}
			letter, err := decodeLetter(t)(dl.Value)
			if err != nil {
				t.Fatal(err)
			}
			if letter.OriginalTopic != rec.Topic || letter.OriginalOffset != rec.Offset {
				t.Errorf("letter names %s/%d, want the source", letter.OriginalTopic, letter.OriginalOffset)
			}
			kept := len(letter.OriginalHeaders) == 1 && letter.OriginalHeaders[0].Key == "trace"
			if kept != tt.headersKept {
				t.Errorf("original headers %v, kept = %v, want %v", len(letter.OriginalHeaders), kept, tt.headersKept)
			}
		})
	}
}

// TestDeadLetterTooLargeInEveryForm: a dead-letter topic whose limit is
// below even a letter without the command's value and headers gets no
// letter (counted, logged) and the command's result is still written,
// instead of a record the topic refuses in every transaction that holds it.
func TestDeadLetterTooLargeInEveryForm(t *testing.T) {
	p := newTestPipeline(t, &fakeAPI{}, func(c *Config) {
		c.Encoder = avroEncoder{}
		c.Sizer = sizerOf(t, topics.Report{Topics: []topics.TopicReport{{Topic: DefaultTopics().DeadLetter, Exists: true,
			ConfigsKnown: true, MaxMessageBytes: 200}}})
	})
	rec := &kgo.Record{Topic: p.cfg.Topics.Commands["capture"], Key: []byte("key-0001"), Value: []byte(`{"session_id":`), Timestamp: testNow}
	out := p.process(context.Background(), p.polled(rec, "capture", false))
	recs, err := p.outcomeRecords(context.Background(), out, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Topic != p.cfg.Topics.Results {
		for _, r := range recs {
			t.Logf("%s: %d batch bytes", r.Topic, topics.RecordBatchBytes(r))
		}
		t.Fatalf("%d records, want the result alone", len(recs))
	}
}

// TestOutcomeKeyOfInvalidKeys: an invalid idempotency key — a card number,
// or a megabyte of text — is never a result's or dead letter's key.
func TestOutcomeKeyOfInvalidKeys(t *testing.T) {
	for _, key := range []string{"4111111111111111", strings.Repeat("k", 1<<20), "k y"} {
		p := newTestPipeline(t, &fakeAPI{}, nil)
		rec := &kgo.Record{Topic: p.cfg.Topics.Commands["capture"], Key: []byte(key), Value: []byte(`{"session_id":"ps_1"}`), Timestamp: testNow}
		out := p.process(context.Background(), p.polled(rec, "capture", false))
		recs, err := p.outcomeRecords(context.Background(), out, testNow)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if r.Topic == p.cfg.Topics.SessionUpdates {
				continue
			}
			want := codec.OutcomeKeyAt(key, codec.Position{Topic: rec.Topic, Partition: rec.Partition, Offset: rec.Offset})
			if strings.Contains(string(r.Key), key) || string(r.Key) != want {
				t.Errorf("%s key %.40q: the invalid key, or not its digest", r.Topic, r.Key)
			}
			if strings.Contains(string(r.Value), key) {
				t.Errorf("%s value holds the invalid key", r.Topic)
			}
		}
	}
}

// parkedUnderLimit parks a capture of twice limit bytes on a pipeline
// whose retry topic takes records of at most limit bytes, and returns the
// records of its batch.
func parkedUnderLimit(t *testing.T, limit int, sent bool) (*Pipeline, *batch, *inbound, []*kgo.Record) {
	t.Helper()
	p := newTestPipeline(t, &fakeAPI{}, func(c *Config) {
		c.Sizer = sizerOf(t, topics.Report{Topics: []topics.TopicReport{{Topic: DefaultTopics().Retry, Exists: true,
			ConfigsKnown: true, MaxMessageBytes: limit}}})
	})
	rec := &kgo.Record{Topic: p.cfg.Topics.Commands["capture"], Key: []byte("key-0001"), Timestamp: testNow,
		Value: []byte(`{"session_id":"ps_1","x":"` + strings.Repeat("x", 2*limit) + `"}`)}
	in := newInbound(rec, "capture", false)
	b := &batch{ins: []*inbound{in}, outcomes: map[*inbound]*outcome{
		in: park(in, retryState{attempts: 1, sent: sent, nextAttempt: testNow}, false)}}
	recs, err := p.recordsOf(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	return p, b, in, recs
}

// TestParkedCommandLargerThanRetryTopic: the retry record refers to its
// command instead of copying it, so a command larger than the retry topic's
// limit parks.
func TestParkedCommandLargerThanRetryTopic(t *testing.T) {
	p, _, _, recs := parkedUnderLimit(t, 4096, false)
	if len(recs) != 1 || recs[0].Topic != p.cfg.Topics.Retry || recs[0].Value != nil {
		t.Fatalf("records %v, want one retry record without the command", recs)
	}
}

// TestParkedCommandTooLargeForRetryTopic: a command that must be parked but
// whose retry record would not fit the retry topic gets a final result
// instead of aborting every transaction that holds it.
func TestParkedCommandTooLargeForRetryTopic(t *testing.T) {
	const limit = 64 // less than the retry record's headers
	for _, sent := range []bool{false, true} {
		p, b, in, recs := parkedUnderLimit(t, limit, sent)
		want := codec.StatusRejected
		if sent {
			want = codec.StatusIndeterminate
		}
		if len(recs) == 0 || recs[0].Topic != p.cfg.Topics.Results {
			t.Fatalf("sent=%v: records %v, want a result first", sent, recs)
		}
		if out := b.outcomes[in]; out.park != nil || out.verdict.Status != want || out.verdict.Code != "record_too_large" {
			t.Errorf("sent=%v: outcome %+v, want %s record_too_large", sent, out.verdict, want)
		}
		for _, r := range recs {
			if r.Topic == p.cfg.Topics.Retry {
				t.Errorf("sent=%v: a retry record was written", sent)
			}
		}
	}
}
