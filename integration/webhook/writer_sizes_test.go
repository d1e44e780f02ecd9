package webhook

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/sessionwriter"
	"github.com/paysession/paysession/connector/topics"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/header"
	"github.com/paysession/paysession/internal/outbound"
)

// smallLimit is the max.message.bytes of the sessions and webhook-events
// topics of the size tests: far below the updates topic's (Kafka's default).
const smallLimit = 16 << 10

// sizesRig is a horizonRig whose sessions and webhook-events topics take
// batches of at most smallLimit bytes, with the topics' limits as the
// connector reads them (topics.Live).
func sizesRig(t *testing.T) (*horizonRig, *topics.Live) {
	t.Helper()
	brokers := harness.Kafka(t)
	h := &horizonRig{brokers: brokers, enc: encoder(t)}
	h.admin = newClient(t, brokers, kgo.MetadataMinAge(100*time.Millisecond))
	h.prod = newClient(t, brokers, kgo.RequiredAcks(kgo.AllISRAcks()), kgo.ProducerLinger(0), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	limit := kadm.StringPtr("16384")
	sessionsConfigs := harness.TopicConfigs(config.Prefix + "TOPIC_SESSIONS")
	sessionsConfigs["max.message.bytes"] = limit
	h.updates = harness.Topic(t, h.admin, 1)
	h.sessions = harness.TopicWith(t, h.admin, 1, sessionsConfigs)
	h.events = harness.TopicWith(t, h.admin, 1, map[string]*string{"max.message.bytes": limit})
	h.set(time.Now())
	rep, err := topics.Verify(context.Background(), kadm.NewClient(h.admin), []topics.Want{
		{Topic: h.updates, Role: topics.SessionUpdates}, {Topic: h.sessions, Role: topics.Sessions},
		{Topic: h.events, Role: topics.WebhookEvents}})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.MaxMessageBytes(h.sessions); got != smallLimit {
		t.Fatalf("sessions topic limit %d, want %d", got, smallLimit)
	}
	return h, topics.NewLive(rep)
}

// startSizedWriter starts a writer whose records are sized against limits
// and waits until it took its partition over.
func (h *horizonRig) startSizedWriter(t *testing.T, limits outbound.Limits) *prometheus.Registry {
	t.Helper()
	dec, err := codec.NewDecoder(codec.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	sizer, err := outbound.NewSizer(limits, reg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	w, err := sessionwriter.New(sessionwriter.Config{
		Kafka:   []kgo.Opt{kgo.SeedBrokers(h.brokers...), kgo.FetchMaxWait(100 * time.Millisecond), kgo.SessionTimeout(6 * time.Second)},
		GroupID: "writer-" + h.updates, TransactionalID: "writer-" + h.updates + "-1",
		UpdatesTopic: h.updates, SessionsTopic: h.sessions, EventsTopic: h.events, Sizer: sizer,
		Decoder: dec, Encoder: h.enc, Clock: h.clock, Logger: testLogger(t), Registerer: reg,
	})
	if err != nil {
		t.Fatal(err)
	}
	harness.Background(t, "session writer", w.Run)
	harness.Eventually(t, 60*time.Second, "writer took its partition over", func() bool {
		return w.Ready(context.Background()) == nil && len(w.Partitions()) == 1
	})
	return reg
}

// sizedUpdate is a webhook's update of session id (event id eventID) whose
// operations carry meta bytes of metadata each.
func (h *horizonRig) sizedUpdate(t *testing.T, id, status string, ops, meta int, eventID string) *kgo.Record {
	t.Helper()
	at := h.clock()
	st := codec.SessionState{Session: codec.Session{ID: id, Status: status, UpdatedAt: &at}, Source: codec.SourceWebhook,
		ObservedAt: at, APIVersion: 1}
	for i := range ops {
		o := codec.Operation{Kind: codec.OperationKind("payment"), ID: "pm_" + strings.Repeat("0", 40) + string(rune('a'+i%26)), Status: "succeeded"}
		if meta > 0 {
			m := codec.Metadata(`{"note":"` + strings.Repeat("m", meta) + `"}`)
			o.Metadata = &m
		}
		st.Session.Operations = append(st.Session.Operations, o)
	}
	v, err := h.enc.Encode(context.Background(), h.updates, &st)
	if err != nil {
		t.Fatal(err)
	}
	r := sessionwriter.Update(h.updates, id, v, kgo.RecordHeader{Key: sessionwriter.HeaderEventID, Value: []byte(eventID)},
		kgo.RecordHeader{Key: sessionwriter.HeaderWebhookType, Value: []byte("payment_finished")})
	r.Timestamp = at
	return r
}

// lastOf reads topic up to the record of session until and returns the
// last record of each session read.
func (h *horizonRig) lastOf(t *testing.T, topic string, from int64, until string) map[string]*kgo.Record {
	t.Helper()
	cl := newClient(t, h.brokers, kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.FetchMaxWait(100*time.Millisecond),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().At(from)}}))
	last := map[string]*kgo.Record{}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for last[until] == nil {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: %s not written within 60s (a record the topic refuses stalls the writer)", topic, until)
		}
		fs.EachRecord(func(r *kgo.Record) { last[string(r.Key)] = r })
	}
	return last
}

// metadataOf decodes a sessions or webhook-events record and reports
// whether its operations carry metadata.
func metadataOf(t *testing.T, r *kgo.Record, v codec.Record) bool {
	t.Helper()
	dec, err := codec.NewDecoder(codec.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if err := dec.DecodeRecord(context.Background(), r.Value, v); err != nil {
		t.Fatalf("%s record of %s: %v", r.Topic, r.Key, err)
	}
	var s codec.Session
	switch v := v.(type) {
	case *codec.SessionState:
		s = v.Session
	case *codec.WebhookEvent:
		s = v.Session
	}
	for _, o := range s.Operations {
		if o.Metadata != nil {
			return true
		}
	}
	return false
}

// TestWriterStateTooLargeForItsTopics: the sessions and webhook-events
// topics take 16 KiB, the updates topic the default. An update whose state
// carries 40 KiB of metadata is written to both without the metadata,
// saying so (paysession-withheld: metadata); one too large even without
// metadata is written to neither (counted); the update behind them is
// written. Before the Sizer the writer copied the update whole, and its
// transaction aborted on every try: nothing behind it was written again.
func TestWriterStateTooLargeForItsTopics(t *testing.T) {
	h, limits := sizesRig(t)
	reg := h.startSizedWriter(t, limits)
	h.produce(t,
		h.sizedUpdate(t, "ps_meta", "accepted", 2, 20<<10, "ev-meta"),
		h.sizedUpdate(t, "ps_ops", "accepted", 400, 0, "ev-ops"), // ~25 KiB without any metadata
		h.sizedUpdate(t, "ps_after", "accepted", 1, 100, "ev-after"))

	sessions := h.lastOf(t, h.sessions, 0, "ps_after")
	events := h.lastOf(t, h.events, 0, "ps_after")
	for name, got := range map[string]map[string]*kgo.Record{"sessions": sessions, "webhook-events": events} {
		if got["ps_ops"] != nil {
			t.Errorf("%s: ps_ops written although it cannot fit", name)
		}
		r := got["ps_meta"]
		if r == nil {
			t.Errorf("%s: ps_meta not written", name)
			continue
		}
		if v, _ := header.Get(r, header.Withheld); v != outbound.WithheldMetadata {
			t.Errorf("%s: ps_meta's %s header = %q, want %q", name, header.Withheld, v, outbound.WithheldMetadata)
		}
		if n := outbound.RecordBatchBytes(r); n > smallLimit {
			t.Errorf("%s: ps_meta written in %d batch bytes, over the topic's %d", name, n, smallLimit)
		}
		if _, marked := header.Get(got["ps_after"], header.Withheld); marked || !metadataOf(t, got["ps_after"], newRecordOf(name)) {
			t.Errorf("%s: ps_after lost its metadata, or says it did", name)
		}
	}
	if metadataOf(t, sessions["ps_meta"], &codec.SessionState{}) || metadataOf(t, events["ps_meta"], &codec.WebhookEvent{}) {
		t.Errorf("ps_meta written with its metadata")
	}
	for _, tc := range []struct{ topic, result string }{{h.sessions, "lean"}, {h.events, "lean"}, {h.sessions, "dropped"}, {h.events, "dropped"}} {
		if got := metric(t, reg, "paysession_records_oversized_total", "topic", tc.topic, "result", tc.result); got != 1 {
			t.Errorf("paysession_records_oversized_total{topic=%s,result=%s} = %v, want 1", tc.topic, tc.result, got)
		}
	}
	if got := metric(t, reg, "paysession_session_writer_updates_total", "result", "too_large"); got != 1 {
		t.Errorf("updates too_large = %v, want 1", got)
	}
}

func newRecordOf(topicName string) codec.Record {
	if topicName == "sessions" {
		return &codec.SessionState{}
	}
	return &codec.WebhookEvent{}
}

// TestWriterFollowsARaisedLimit: a state withheld (lean) for a 16 KiB
// sessions topic is written whole once the topic's max.message.bytes is
// raised on the cluster, within the limits' refresh interval and the
// rebuild of the writer's Kafka session, without a restart.
func TestWriterFollowsARaisedLimit(t *testing.T) {
	h, limits := sizesRig(t)
	const refresh = 500 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	adm := kadm.NewClient(h.admin)
	go func() { _ = limits.Run(ctx, func() *kadm.Client { return adm }, refresh, testLogger(t)) }()
	h.startSizedWriter(t, limits)

	h.produce(t, h.sizedUpdate(t, "ps_1", "accepted", 2, 10<<10, "ev-1"))
	first := h.lastOf(t, h.sessions, 0, "ps_1")["ps_1"]
	if v, _ := header.Get(first, header.Withheld); v != outbound.WithheldMetadata {
		t.Fatalf("before the raise: %s = %q, want the state withheld", header.Withheld, v)
	}

	resp, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "max.message.bytes", Value: kadm.StringPtr("1048576")}}, h.sessions)
	if err == nil {
		_, err = resp.On(h.sessions, nil)
	}
	if err != nil {
		t.Fatalf("raise the limit of %s: %v", h.sessions, err)
	}
	harness.Eventually(t, 30*time.Second, "the raised limit read", func() bool { return limits.MaxMessageBytes(h.sessions) == 1048576 })

	from := h.end(t, h.sessions)
	h.set(h.clock().Add(time.Second))
	h.produce(t, h.sizedUpdate(t, "ps_1", "settled", 2, 10<<10, "ev-2"))
	second := h.lastOf(t, h.sessions, from, "ps_1")["ps_1"]
	if _, marked := header.Get(second, header.Withheld); marked || !metadataOf(t, second, &codec.SessionState{}) {
		t.Errorf("after the raise: the same-size state is still written without its metadata")
	}
}
