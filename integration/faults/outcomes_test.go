package faults_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/paysession/paysession/integration/leakscan"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/paysim"
)

// Position is where a record sits: topic, partition, offset.
type Position struct {
	Topic     string
	Partition int32
	Offset    int64
}

// Result is a committed command result and where it was read.
type Result struct {
	codec.CommandResult
	At   Position  // position of the result record itself
	Read time.Time // when the outcome reader read it
}

// Source is the position of the command record the result answers.
func (r Result) Source() Position {
	return Position{r.SourceTopic, r.SourcePartition, r.SourceOffset}
}

// Outcomes reads the command-results, dead-letter and webhook-events
// topics from the start with read_committed for as long as the test runs.
type Outcomes struct {
	cl          *kgo.Client
	mu          sync.Mutex
	results     []Result
	deadLetters []codec.DeadLetter
	webhooks    []codec.WebhookEvent
	errs        []error
	leaks       []string // card data found in any record read (masked findings)
}

// ReadOutcomes starts reading the three topics, and scanned (read only for
// the leak scan, e.g. the sessions topic); it stops when t ends. Every
// record of every topic is scanned for card numbers. reg, when not nil,
// is the registry of Confluent-framed outcomes.
func ReadOutcomes(t testing.TB, brokers []string, reg *sr.Client, results, deadLetter, webhookEvents string, scanned ...string) *Outcomes {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(append([]string{results, deadLetter, webhookEvents}, scanned...)...),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	dec, err := codec.NewDecoder(codec.DecoderConfig{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	o := &Outcomes{cl: cl}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			fs.EachRecord(func(r *kgo.Record) {
				o.scan(r)
				if !slices.Contains(scanned, r.Topic) {
					o.add(ctx, dec, r, results, deadLetter)
				}
			})
		}
	}()
	t.Cleanup(func() { cancel(); <-done; cl.Close() })
	return o
}

// Reconsume reads topic again from its start after it was deleted and
// recreated: a client never adopts a recreated topic's new id by itself
// (it fails the topic with UNKNOWN_TOPIC_ID until purged and re-added).
// Records read before the deletion stay in the outcomes.
func (o *Outcomes) Reconsume(topic string) {
	o.cl.PurgeTopicsFromClient(topic)
	o.cl.AddConsumeTopics(topic)
}

// scan records the card data in r's key, value and headers.
func (o *Outcomes) scan(r *kgo.Record) {
	found := leakscan.Scan(r.Key)
	found = append(found, leakscan.Scan(r.Value)...)
	for _, h := range r.Headers {
		found = append(found, leakscan.Scan(h.Value)...)
	}
	found = slices.DeleteFunc(found, notSent)
	if len(found) == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, f := range found {
		o.leaks = append(o.leaks, fmt.Sprintf("%s at %s/%d/%d", f, r.Topic, r.Partition, r.Offset))
	}
}

// sentCards are the card numbers the scenarios' commands carry: the
// sandbox's test cards.
var sentCards = []string{paysim.CardSuccess, paysim.CardDeclined, paysim.Card3DS, paysim.CardHold,
	paysim.CardRequiresConfirm}

// notSent reports a finding that is none of the cards sent. Such digit
// runs are not card data: the sandbox's transaction_info.rrn (12 random
// digits, so Luhn-valid one time in ten) in session states and webhook
// events looks like a 12-digit card number to leakscan, which is why
// integration/leakscan also counts only the values it sent.
func notSent(f leakscan.Finding) bool {
	return !slices.ContainsFunc(sentCards, f.Is)
}

// Leaks returns how many card numbers the records read so far held; each is
// logged by the oracle's caller through LeakFindings.
func (o *Outcomes) Leaks() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.leaks)
}

// LeakFindings describes the card data found (masked, with the record's
// position).
func (o *Outcomes) LeakFindings() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.leaks)
}

func (o *Outcomes) add(ctx context.Context, dec *codec.Decoder, r *kgo.Record, results, deadLetter string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var err error
	switch r.Topic {
	case results:
		var v Result
		err = dec.DecodeRecord(ctx, r.Value, &v.CommandResult)
		v.At, v.Read = Position{r.Topic, r.Partition, r.Offset}, time.Now()
		o.results = append(o.results, v)
	case deadLetter:
		var v codec.DeadLetter
		err = dec.DecodeRecord(ctx, r.Value, &v)
		o.deadLetters = append(o.deadLetters, v)
	default:
		var v codec.WebhookEvent
		err = dec.DecodeRecord(ctx, r.Value, &v)
		o.webhooks = append(o.webhooks, v)
	}
	if err != nil {
		o.errs = append(o.errs, err)
	}
}

// Results returns a copy of the results read so far.
func (o *Outcomes) Results() []Result {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Result(nil), o.results...)
}

// DeadLetters returns a copy of the dead letters read so far.
func (o *Outcomes) DeadLetters() []codec.DeadLetter {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]codec.DeadLetter(nil), o.deadLetters...)
}

// Webhooks returns a copy of the webhook events read so far.
func (o *Outcomes) Webhooks() []codec.WebhookEvent {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]codec.WebhookEvent(nil), o.webhooks...)
}

// DecodeErrors returns the records that did not decode.
func (o *Outcomes) DecodeErrors() []error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]error(nil), o.errs...)
}

// AwaitAnswered waits until every produced command record has at least one
// result or dead letter (by source position), failing t after timeout.
func (o *Outcomes) AwaitAnswered(t testing.TB, produced []Command, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		missing := len(produced) - len(answered(produced, o.Results(), o.DeadLetters()))
		if missing == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d commands still without a result after %v", missing, len(produced), timeout)
		}
		time.Sleep(200 * time.Millisecond) // polling the reader's state; it has no signal per record
	}
}

// answered returns the produced positions with a result or a dead letter.
func answered(produced []Command, results []Result, dls []codec.DeadLetter) map[Position]bool {
	want := make(map[Position]bool, len(produced))
	for _, c := range produced {
		want[c.At] = true
	}
	got := map[Position]bool{}
	for _, r := range results {
		if want[r.Source()] {
			got[r.Source()] = true
		}
	}
	for _, d := range dls {
		p := Position{d.OriginalTopic, d.OriginalPartition, d.OriginalOffset}
		if want[p] {
			got[p] = true
		}
	}
	return got
}

// TestOutcomesScanFindsCards: the oracle's leak column can fail — a full
// card number in a record's value or header is counted, a masked one not.
func TestOutcomesScanFindsCards(t *testing.T) {
	o := &Outcomes{}
	o.scan(&kgo.Record{Topic: "t", Value: []byte(`{"number":"411111******1111"}`)})
	if o.Leaks() != 0 {
		t.Fatalf("masked card counted: %v", o.LeakFindings())
	}
	o.scan(&kgo.Record{Topic: "t", Value: []byte(`{"number":"4111111111111111"}`),
		Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("pan=5555555555554444")}}})
	if o.Leaks() != 2 {
		t.Fatalf("Leaks() = %d; want 2 (value and header)", o.Leaks())
	}
	for _, f := range o.LeakFindings() {
		if strings.Contains(f, "4111111111111111") || strings.Contains(f, "5555555555554444") {
			t.Errorf("finding repeats the number: %s", f)
		}
	}
}
