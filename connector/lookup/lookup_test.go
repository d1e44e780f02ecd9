package lookup_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/kit"
	"github.com/paysession/paysession/connector/lookup"
	"github.com/paysession/paysession/internal/header"
)

// cluster starts an in-process cluster holding the default outcome and
// retry topics (two partitions each) and returns a producer and a reader
// client as lookup.Read wants it.
func cluster(t *testing.T) (prod, reader *kgo.Client, topics kit.Topics) {
	t.Helper()
	topics = kit.DefaultTopics()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, topics.CommandResults, topics.DeadLetter, topics.Retry, topics.Sessions))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	prod, err = kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(prod.Close)
	reader, err = kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.KeepControlRecords(), kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reader.Close)
	return prod, reader, topics
}

func encode(t *testing.T, v kit.Record) []byte {
	t.Helper()
	b, err := kit.EncodeSingleObject(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFind(t *testing.T) {
	prod, reader, topics := cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	at := func(s int) time.Time { return time.Unix(1700000000+int64(s), 0).UTC() }
	sid := "ps_42"
	state := func(status string) []byte {
		return encode(t, &kit.SessionState{Session: kit.Session{ID: sid, Status: status}, Source: kit.SourceAPIResponse, ObservedAt: at(0)})
	}
	recs := []*kgo.Record{
		// The command parked once, then accepted; its session moved twice.
		{Topic: topics.Retry, Partition: 1, Key: []byte(sid), Timestamp: at(1), Headers: []kgo.RecordHeader{
			header.New(header.Key, "pay-0001"), header.New(header.Lane, "s:"+sid), header.New(header.Attempts, "3")}},
		{Topic: topics.CommandResults, Partition: 0, Key: []byte("other-01"), Timestamp: at(2),
			Value: encode(t, &kit.CommandResult{IdempotencyKey: "other-01", Kind: kit.KindCapture, Status: kit.StatusAccepted, CompletedAt: at(2)})},
		{Topic: topics.CommandResults, Partition: 1, Key: []byte("pay-0001"), Timestamp: at(3),
			Value: encode(t, &kit.CommandResult{IdempotencyKey: "pay-0001", Kind: kit.KindCapture, Status: kit.StatusAccepted, SessionID: &sid, CompletedAt: at(3)})},
		{Topic: topics.Sessions, Partition: 0, Key: []byte(sid), Timestamp: at(4), Value: state("in_progress")},
		{Topic: topics.Sessions, Partition: 1, Key: []byte("ps_other"), Timestamp: at(5), Value: state("failed")},
		{Topic: topics.Sessions, Partition: 0, Key: []byte(sid), Timestamp: at(6), Value: state("succeeded")},
		// A dead letter of another key, whose value holds a card number.
		{Topic: topics.DeadLetter, Partition: 0, Key: []byte("invalid-payments.commands.capture-0-7"), Timestamp: at(7),
			Value: encode(t, &kit.DeadLetter{OriginalTopic: "payments.commands.capture", OriginalValue: []byte(`{"number":"4111111111111111"}`),
				OriginalHeaders: []kit.Header{}, Error: "invalid", FailedAt: at(7)})},
		// It was redriven: its redrive marker.
		{Topic: topics.DeadLetter, Partition: 0, Key: []byte("invalid-payments.commands.capture-0-7"), Timestamp: at(8),
			Headers: []kgo.RecordHeader{header.New(header.Redriven, "0/0")}},
	}
	if err := prod.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	dec, err := kit.NewDecoder(kit.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := lookup.Config{Topics: topics, Decoder: dec, Client: reader}

	tests := []struct {
		name, key string
		want      []string // record kinds in order
		check     func(t *testing.T, lines []lookup.Line)
	}{
		{"parked then accepted, with its session's latest state", "pay-0001", []string{"retry", "result", "session"}, func(t *testing.T, lines []lookup.Line) {
			if lines[0].Value != nil || lines[0].Headers[header.Attempts] != "3" {
				t.Errorf("retry line %+v", lines[0])
			}
			if st, ok := lines[2].Value.(*kit.SessionState); !ok || st.Session.Status != "succeeded" {
				t.Errorf("session line %+v, want the latest state", lines[2].Value)
			}
		}},
		{"invalid key: its dead letter, masked", "invalid-payments.commands.capture-0-7", []string{"dead_letter", "redriven"}, func(t *testing.T, lines []lookup.Line) {
			if lines[0].OriginalValue == nil || strings.Contains(*lines[0].OriginalValue, "4111111111111111") {
				t.Errorf("dead letter original value %v", lines[0].OriginalValue)
			}
		}},
		{"unknown key: nothing", "nobody-01", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, err := lookup.Find(ctx, cfg, tt.key)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range lines {
				if l.Error != "" {
					t.Errorf("%s line: %s", l.Record, l.Error)
				}
				got = append(got, l.Record)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			if tt.check != nil {
				tt.check(t, lines)
			}
		})
	}
}

func TestReadMissingTopic(t *testing.T) {
	_, reader, _ := cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := lookup.Read(ctx, reader, lookup.Range{Topics: []string{"no.such.topic"}}, func(*kgo.Record) bool { return true })
	if !errors.Is(err, lookup.ErrNoTopic) {
		t.Fatalf("err %v, want ErrNoTopic", err)
	}
}

func TestReadStarts(t *testing.T) {
	prod, reader, topics := cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := range 5 {
		r := &kgo.Record{Topic: topics.DeadLetter, Partition: 0, Key: []byte{'a' + byte(i)}, Timestamp: time.UnixMilli(int64(1000 * (i + 1)))}
		if err := prod.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		from lookup.Start
		want string
	}{
		{"beginning", lookup.Start{}, "abcde"},
		{"end", lookup.Start{End: true}, ""},
		{"offset", lookup.Start{Offset: 3, HasOffset: true}, "de"},
		{"from the end", lookup.Start{Offset: -2, HasOffset: true}, "de"},
		{"past the end", lookup.Start{Offset: 99, HasOffset: true}, ""},
		{"time", lookup.Start{Time: time.UnixMilli(2500)}, "cde"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []byte
			err := lookup.Read(ctx, reader, lookup.Range{Topics: []string{topics.DeadLetter}, From: tt.from}, func(r *kgo.Record) bool {
				got = append(got, r.Key...)
				return true
			})
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}

// TestFindMissingTopic: a topic of the configuration that does not exist
// is an error, not an empty answer.
func TestFindMissingTopic(t *testing.T) {
	_, reader, topics := cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dec, err := kit.NewDecoder(kit.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	topics.Retry = "no.such.retry.topic"
	lines, err := lookup.Find(ctx, lookup.Config{Topics: topics, Decoder: dec, Client: reader}, "pay-0001")
	if !errors.Is(err, lookup.ErrNoTopic) || len(lines) != 0 {
		t.Fatalf("lines %v, err %v; want ErrNoTopic", lines, err)
	}
}
