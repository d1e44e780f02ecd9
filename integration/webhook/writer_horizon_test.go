package webhook

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/sessionwriter"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/config"
)

// horizonRig is a session writer's three topics (one partition each) on
// the real broker, with a clock the test sets.
type horizonRig struct {
	brokers                   []string
	admin                     *kgo.Client
	prod                      *kgo.Client
	enc                       *codec.Encoder
	updates, sessions, events string

	mu  sync.Mutex
	now time.Time
}

func (h *horizonRig) clock() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.now
}

func (h *horizonRig) set(now time.Time) {
	h.mu.Lock()
	h.now = now
	h.mu.Unlock()
}

// state encodes a session state as the writer's producers do.
func (h *horizonRig) state(t *testing.T, id, status string, updatedAt time.Time) []byte {
	t.Helper()
	st := codec.SessionState{Session: codec.Session{ID: id, Status: status, UpdatedAt: &updatedAt, Operations: []codec.Operation{}},
		Source: codec.SourceWebhook, ObservedAt: updatedAt, APIVersion: 1}
	v, err := h.enc.Encode(context.Background(), h.updates, &st)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// produce writes records with their timestamps as given and waits for
// every acknowledgement.
func (h *horizonRig) produce(t *testing.T, recs ...*kgo.Record) {
	t.Helper()
	if err := h.prod.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// update is an update record of session id, produced at at.
func (h *horizonRig) update(t *testing.T, id, status string, updatedAt, at time.Time, eventID string) *kgo.Record {
	r := sessionwriter.Update(h.updates, id, h.state(t, id, status, updatedAt))
	if eventID != "" {
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: sessionwriter.HeaderEventID, Value: []byte(eventID)},
			kgo.RecordHeader{Key: sessionwriter.HeaderWebhookType, Value: []byte("payment_finished")})
	}
	r.Timestamp = at
	return r
}

// startWriter starts a writer (replica name) whose clock is the rig's and
// waits until it took its partition over.
func (h *horizonRig) startWriter(t *testing.T, name string) (*prometheus.Registry, func() error) {
	t.Helper()
	dec, err := codec.NewDecoder(codec.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	w, err := sessionwriter.New(sessionwriter.Config{
		Kafka:   []kgo.Opt{kgo.SeedBrokers(h.brokers...), kgo.FetchMaxWait(100 * time.Millisecond), kgo.SessionTimeout(6 * time.Second)},
		GroupID: "writer-" + h.updates, TransactionalID: "writer-" + h.updates + "-" + name,
		UpdatesTopic: h.updates, SessionsTopic: h.sessions, EventsTopic: h.events,
		Decoder: dec, Encoder: h.enc, Clock: h.clock, Logger: testLogger(t), Registerer: reg,
	})
	if err != nil {
		t.Fatal(err)
	}
	stop := harness.Background(t, "session writer "+name, w.Run)
	harness.Eventually(t, 60*time.Second, "writer "+name+" took its partition over", func() bool {
		return w.Ready(context.Background()) == nil && len(w.Partitions()) == 1
	})
	return reg, stop
}

// metric returns the value of a counter or gauge (labels: name=value
// pairs), or the sample sum of a histogram, from reg.
func metric(t *testing.T, reg *prometheus.Registry, name string, labels ...string) float64 {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if !hasLabels(m, labels) {
				continue
			}
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue()
			case m.Gauge != nil:
				return m.Gauge.GetValue()
			case m.Histogram != nil:
				return m.Histogram.GetSampleSum()
			}
		}
	}
	return 0
}

func hasLabels(m *dto.Metric, labels []string) bool {
	for i := 0; i+1 < len(labels); i += 2 {
		found := false
		for _, l := range m.GetLabel() {
			found = found || l.GetName() == labels[i] && l.GetValue() == labels[i+1]
		}
		if !found {
			return false
		}
	}
	return true
}

// written reads what the writer committed to topic from offset from on,
// up to the record of session until (a sentinel produced last): keys in
// order.
func (h *horizonRig) written(t *testing.T, topic string, from int64, until string) []string {
	t.Helper()
	cl := newClient(t, h.brokers, kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.FetchMaxWait(100*time.Millisecond),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().At(from)}}))
	var keys []string
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: %s not written within 60s; read %v", topic, until, keys)
		}
		done := false
		fs.EachRecord(func(r *kgo.Record) {
			keys = append(keys, string(r.Key))
			done = done || string(r.Key) == until
		})
		if done {
			return keys
		}
	}
}

func (h *horizonRig) end(t *testing.T, topic string) int64 {
	t.Helper()
	ends, err := kadm.NewClient(h.admin).ListEndOffsets(context.Background(), topic)
	if err != nil || ends.Error() != nil {
		t.Fatalf("end offsets of %s: %v %v", topic, err, ends.Error())
	}
	o, _ := ends.Lookup(topic, 0)
	return o.Offset
}

// TestWriterRemembersOnlyTheHorizon: the session writer takes a partition
// over by reading only the records of the horizon, at the start and after a
// restart; a session it forgot gets its chargeback published, but not the
// replay of a webhook older than the horizon; and a session written across
// the horizon's boundary never goes back.
func TestWriterRemembersOnlyTheHorizon(t *testing.T) {
	const (
		day        = 24 * time.Hour
		historical = 300
		recent     = 20
	)
	brokers := harness.Kafka(t)
	h := &horizonRig{brokers: brokers, enc: encoder(t)}
	h.admin = newClient(t, brokers, kgo.MetadataMinAge(100*time.Millisecond))
	h.prod = newClient(t, brokers, kgo.RequiredAcks(kgo.AllISRAcks()), kgo.ProducerLinger(0), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	h.updates, h.events = harness.Topic(t, h.admin, 1), harness.Topic(t, h.admin, 1)
	h.sessions = harness.TopicWith(t, h.admin, 1, harness.TopicConfigs(config.Prefix+"TOPIC_SESSIONS"))
	// Every time lies in the past: the broker refuses timestamps more than
	// an hour ahead of its clock.
	t0 := time.Now().Add(-20 * day).Truncate(time.Millisecond)
	h.set(t0)

	// The sessions partition's history: sessions quiet for weeks, ps_200
	// written weeks ago and again yesterday, and recent sessions.
	var hist []*kgo.Record
	put := func(id, status string, at time.Time) {
		hist = append(hist, &kgo.Record{Topic: h.sessions, Key: []byte(id), Value: h.state(t, id, status, at), Timestamp: at})
	}
	for i := range historical {
		put(fmt.Sprintf("ps_%d", 10000+i), "accepted", t0.Add(-30*day+time.Duration(i)*time.Hour))
	}
	put("ps_100", "accepted", t0.Add(-30*day))
	put("ps_200", "in_progress", t0.Add(-30*day))
	put("ps_200", "pending", t0.Add(-day))
	for i := range recent {
		put(fmt.Sprintf("ps_%d", 20000+i), "accepted", t0.Add(-2*day+time.Duration(i)*time.Hour))
	}
	h.produce(t, hist...)
	sessionsFrom, eventsFrom := h.end(t, h.sessions), h.end(t, h.events)

	reg, stop := h.startWriter(t, "a")
	if got := metric(t, reg, "paysession_session_writer_takeover_records"); got != recent+1 {
		t.Errorf("takeover read %v sessions records, want %d: those of the horizon, not the %d of the partition", got, recent+1, len(hist))
	}
	if got := metric(t, reg, "paysession_session_writer_sessions"); got != recent+1 {
		t.Errorf("writer holds %v sessions after the takeover, want %d", got, recent+1)
	}

	h.produce(t,
		h.update(t, "ps_100", "accepted", t0.Add(-30*day), t0, "evt-replayed"), // a replay older than the horizon: nothing
		h.update(t, "ps_100", "accepted", t0.Add(-time.Minute), t0, "evt-cb"),  // the chargeback weeks later: state and event
		h.update(t, "ps_200", "in_progress", t0.Add(-30*day), t0, ""),          // across the boundary: older, dropped
		h.update(t, "ps_300", "created", t0, t0, ""))                           // sentinel
	if got, want := h.written(t, h.sessions, sessionsFrom, "ps_300"), []string{"ps_100", "ps_300"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("sessions written = %v, want %v", got, want)
	}
	if got := metric(t, reg, "paysession_session_writer_updates_total", "result", "stale"); got != 1 {
		t.Errorf("stale updates = %v, want 1", got)
	}
	sessionsFrom = h.end(t, h.sessions)

	// Restart half a day later: the takeover reads the horizon again.
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	h.set(t0.Add(12 * time.Hour))
	reg, _ = h.startWriter(t, "b")
	if got := metric(t, reg, "paysession_session_writer_takeover_records"); got != recent+3 {
		t.Errorf("takeover after the restart read %v sessions records, want %d", got, recent+3)
	}

	// ps_200 stays remembered by its write of yesterday: its old state is
	// older. Six days on, that write is beyond the horizon too: a replay of
	// it is stale, a new state is written.
	t1 := t0.Add(6*day + 2*time.Hour)
	h.produce(t, h.update(t, "ps_200", "in_progress", t0.Add(-30*day), t0.Add(12*time.Hour), ""),
		h.update(t, "ps_100", "accepted", t0.Add(-30*day), t0.Add(12*time.Hour), "evt-replayed-again")) // remembered now, still no event
	h.produce(t, h.update(t, "ps_301", "created", t0.Add(12*time.Hour), t0.Add(12*time.Hour), ""))
	if got := h.written(t, h.sessions, sessionsFrom, "ps_301"); fmt.Sprint(got) != "[ps_301]" {
		t.Errorf("after the restart, sessions written = %v, want [ps_301]", got)
	}
	sessionsFrom = h.end(t, h.sessions)
	h.set(t1)
	h.produce(t,
		h.update(t, "ps_200", "pending", t0.Add(-day), t1, "evt-old-pending"),
		h.update(t, "ps_200", "accepted", t1.Add(-time.Minute), t1, ""),
		h.update(t, "ps_302", "created", t1, t1, ""))
	if got, want := h.written(t, h.sessions, sessionsFrom, "ps_302"), []string{"ps_200", "ps_302"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("six days on, sessions written = %v, want %v", got, want)
	}
	h.produce(t, h.update(t, "ps_303", "created", t1, t1, "evt-sentinel"))
	if got, want := h.written(t, h.events, eventsFrom, "ps_303"), []string{"ps_100", "ps_303"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("webhook events written = %v, want %v: only the chargeback's and the sentinel's", got, want)
	}
}
