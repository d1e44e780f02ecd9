package redrive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
)

// The topics of the tests: a command topic and the dead-letter topic.
const src, deadLetter = "payments.commands.init-payment", "payments.dead-letter"

// newCluster starts an in-process Kafka with the two topics until the test
// ends and returns its seed addresses.
func newCluster(t *testing.T) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.SeedTopics(2, src, deadLetter))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

// produce writes records (a record's Partition is kept).
func produce(t *testing.T, seeds []string, recs ...*kgo.Record) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// decodeLetter decodes single-object dead letters.
func decodeLetter(t *testing.T) func([]byte) (*codec.DeadLetter, error) {
	dec, err := codec.NewDecoder(codec.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return func(b []byte) (*codec.DeadLetter, error) {
		var dl codec.DeadLetter
		return &dl, dec.DecodeRecord(context.Background(), b, &dl)
	}
}

func TestRedrive(t *testing.T) {
	seeds := newCluster(t)
	orig := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	type wire struct {
		codec.DeadLetter
		Value []byte `json:"value"`
	}
	var dls []*kgo.Record
	for _, k := range []string{"key-0001", "key-0002"} {
		v, _ := json.Marshal(wire{DeadLetter: codec.DeadLetter{OriginalTopic: src, OriginalKey: []byte(k),
			OriginalHeaders: []codec.Header{{Key: "trace", Value: []byte("t")}}, OriginalTimestamp: &orig},
			Value: []byte(`{"session_id":"ps_1"}`)})
		dls = append(dls, &kgo.Record{Topic: deadLetter, Key: []byte(k), Value: v})
	}
	produce(t, seeds, dls...)
	cfg := Config{Kafka: []kgo.Opt{kgo.SeedBrokers(seeds...)}, DeadLetter: deadLetter,
		Decode: func(b []byte) (*codec.DeadLetter, error) {
			var w wire
			if err := json.Unmarshal(b, &w); err != nil {
				return nil, err
			}
			w.OriginalValue = w.Value
			return &w.DeadLetter, nil
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := Run(ctx, cfg)
	if err != nil || n != 2 {
		t.Fatalf("Run = %d, %v; want 2", n, err)
	}
	if n, err := Run(ctx, cfg); err != nil || n != 0 {
		t.Fatalf("second Run = %d, %v; want 0 (each record once)", n, err)
	}
	cl, _ := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(src),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	defer cl.Close()
	var got []*kgo.Record
	for len(got) < 2 && ctx.Err() == nil {
		got = append(got, cl.PollFetches(ctx).Records()...)
	}
	for _, r := range got {
		if at := header.OriginalTime(r, false); !at.Equal(orig) || string(r.Value) != `{"session_id":"ps_1"}` {
			t.Errorf("redriven record: time %v value %s", at, r.Value)
		}
		if v, _ := header.Get(r, "trace"); v != "t" {
			t.Errorf("original header lost")
		}
	}
}

// TestRedriveSourceGone: without its source record a dead letter is redriven
// from its own bytes only when they are the original; a masked one is
// skipped and named in the error.
func TestRedriveSourceGone(t *testing.T) {
	seeds := newCluster(t)
	other := &kgo.Record{Topic: src, Key: []byte("someone-else"), Value: []byte(`{}`)}
	produce(t, seeds, other) // sets other.Partition and other.Offset
	at := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	letters := []struct {
		key        string
		partition  int32
		offset     int64
		protection string // "" = a letter written before protection existed
		value      []byte
	}{
		{"key-masked", 0, 5, string(codec.ValueMasked), []byte(`{"number":"411111******1111"}`)},
		{"key-withheld", 0, 6, string(codec.ValueWithheld), nil},
		{"key-original", 0, 7, string(codec.ValueOriginal), []byte(`{"session_id":"ps_7"}`)},
		{"key-legacy", 0, 8, "", []byte(`{"session_id":"ps_8"}`)},
		{"key-other", other.Partition, other.Offset, string(codec.ValueOriginal), []byte(`{"session_id":"ps_9"}`)}, // another key there
	}
	var recs []*kgo.Record
	for _, l := range letters {
		v, err := codec.EncodeSingleObject(&codec.DeadLetter{OriginalTopic: src, OriginalPartition: l.partition,
			OriginalOffset: l.offset, OriginalKey: []byte(l.key), OriginalValue: l.value, OriginalTimestamp: &at,
			Error: "invalid", FailedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		r := &kgo.Record{Topic: deadLetter, Partition: 0, Key: []byte(l.key), Value: v}
		if l.protection != "" {
			r.Headers = []kgo.RecordHeader{header.New(header.DeadLetterValue, l.protection)}
		}
		recs = append(recs, r)
	}
	produce(t, seeds, recs...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := Config{Kafka: []kgo.Opt{kgo.SeedBrokers(seeds...)}, DeadLetter: deadLetter,
		Decode: decodeLetter(t), SourceTimeout: 5 * time.Second}
	n, err := Run(ctx, cfg)
	var re *Error
	if n != 3 || !errors.As(err, &re) || len(re.Skipped) != 2 {
		t.Fatalf("Run = %d, %v; want 3 redriven and 2 skipped", n, err)
	}
	for i, off := range []int64{5, 6} {
		if s := re.Skipped[i]; s.Topic != src || s.Partition != 0 || s.Offset != off {
			t.Errorf("skipped[%d] = %s/%d/%d", i, s.Topic, s.Partition, s.Offset)
		}
		if want := fmt.Sprintf("%s/0/%d", src, off); !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %s", want)
		}
	}
	// Nothing is passed over: a second run redrives none again and names
	// the same two letters it cannot redrive.
	if n, err := Run(ctx, cfg); n != 0 || !errors.As(err, &re) || len(re.Skipped) != 2 {
		t.Fatalf("second Run = %d, %v; want 0 (each record once) and the 2 skipped again", n, err)
	}
	got := map[string]string{}
	for _, r := range harness.ReadCommitted(t, seeds, src, 4) {
		got[string(r.Key)] = string(r.Value)
	}
	for _, l := range letters[2:] {
		if got[l.key] != string(l.value) {
			t.Errorf("%s: redriven %q; want the dead letter's bytes", l.key, got[l.key])
		}
	}
}

// letterRecord is a dead letter of key k holding its original bytes, with
// extra headers.
func letterRecord(t *testing.T, k string, offset int64, hs ...kgo.RecordHeader) *kgo.Record {
	t.Helper()
	at := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	v, err := codec.EncodeSingleObject(&codec.DeadLetter{OriginalTopic: src, OriginalOffset: offset,
		OriginalKey: []byte(k), OriginalValue: []byte(`{"session_id":"ps_1"}`), OriginalTimestamp: &at,
		Error: "invalid", FailedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	return &kgo.Record{Topic: deadLetter, Partition: 0, Key: []byte(k), Value: v,
		Headers: append([]kgo.RecordHeader{header.New(header.DeadLetterValue, string(codec.ValueOriginal))}, hs...)}
}

// TestRedriveRuns: a dry run writes nothing, Limit stops a run whose rest
// the next run takes, and a letter whose command was redriven MaxRedrives
// times is skipped while the others carry their count on.
func TestRedriveRuns(t *testing.T) {
	seeds := newCluster(t)
	produce(t, seeds,
		letterRecord(t, "key-a", 100),
		letterRecord(t, "key-b", 101, header.NewInt(header.RedriveCount, 1)),
		letterRecord(t, "key-c", 102),
		letterRecord(t, "key-looped", 103, header.NewInt(header.RedriveCount, 3)))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var reported []Letter
	var last Progress
	cfg := Config{Kafka: []kgo.Opt{kgo.SeedBrokers(seeds...)}, DeadLetter: deadLetter, Decode: decodeLetter(t),
		SourceTimeout: 5 * time.Second, Report: func(l Letter) { reported = append(reported, l) },
		Progress: func(p Progress) { last = p }}
	var re *Error

	dry := cfg
	dry.DryRun = true
	if n, err := Run(ctx, dry); n != 3 || !errors.As(err, &re) || len(re.Skipped) != 1 || re.Skipped[0].Offset != 103 {
		t.Fatalf("dry run = %d, %v; want 3 and key-looped skipped", n, err)
	}
	if reported[0].Action != WouldRedrive || reported[0].Key != "key-a" || last.Read != 4 || last.Redriven != 3 {
		t.Errorf("dry run reported %+v, progress %+v", reported, last)
	}
	if got := endOffset(t, seeds, src) + endOffset(t, seeds, deadLetter); got != 4 {
		t.Fatalf("dry run wrote: %d records on the topics; want the 4 letters only", got)
	}

	limited := cfg
	limited.Limit = 2
	if n, err := Run(ctx, limited); n != 2 || err != nil {
		t.Fatalf("limited run = %d, %v; want 2", n, err)
	}
	if n, err := Run(ctx, cfg); n != 1 || !errors.As(err, &re) || len(re.Skipped) != 1 {
		t.Fatalf("next run = %d, %v; want the 1 left and key-looped skipped", n, err)
	}
	counts := map[string]int64{}
	for _, r := range harness.ReadCommitted(t, seeds, src, 3) {
		counts[string(r.Key)], _ = header.Int(r, header.RedriveCount)
	}
	if want := map[string]int64{"key-a": 1, "key-b": 2, "key-c": 1}; fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("redrive counts %v; want %v", counts, want)
	}
}

// endOffset is the sum of a topic's partitions' end offsets.
func endOffset(t *testing.T, seeds []string, topic string) int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
	return n
}
