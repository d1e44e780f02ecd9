package webhook

import (
	"bytes"
	"context"
	"crypto/rsa"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/ingress"
	"github.com/paysession/paysession/connector/reconcile"
	"github.com/paysession/paysession/connector/sessionstate"
	"github.com/paysession/paysession/connector/sessionwriter"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/paysim"
	"github.com/paysession/paysession/internal/signing"
	"github.com/paysession/paysession/schemas"
)

func TestMain(m *testing.M) { harness.Main(m) }

const project = "proj-webhook"

// projectB is the sandbox's second partner project; its webhooks arrive at
// the ingress's path + "/" + projectB.
const projectB = "proj-webhook-b"

var (
	keysOnce            sync.Once
	serviceKey, partner *rsa.PrivateKey
)

func keys(t *testing.T) {
	t.Helper()
	keysOnce.Do(func() {
		var err error
		if serviceKey, err = signing.GenerateKey(2048); err == nil {
			partner, err = signing.GenerateKey(2048)
		}
		if err != nil {
			panic(err)
		}
	})
}

func encoder(t *testing.T) *codec.Encoder {
	t.Helper()
	e, err := codec.NewEncoder(codec.EncoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// delivery is one webhook attempt as the sandbox made it.
type delivery struct {
	body []byte
	sig  string
	code int
}

// rig is the sandbox, the connector's webhook ingress in front of a real
// broker, and a recorder of every webhook attempt between them.
type rig struct {
	sim      *paysim.Server
	api      *payapi.Client
	brokers  []string
	admin    *kgo.Client
	prod     *kgo.Client
	events   string
	sessions string
	updates  string
	writer   *sessionwriter.Writer
	// writerOpts are the options of rigOpts.writer that newWriter passes on.
	writerOpts sessionwriter.Config
	ingress    *ingress.Ingress
	url        string // the ingress endpoint

	mu         sync.Mutex
	deliveries []delivery
	target     http.Handler // where the recorder forwards
}

type rigOpts struct {
	brokers         []string // default: the shared broker
	publishTimeout  time.Duration
	deliveryTimeout time.Duration        // default: the ingress default
	sessionsConfigs map[string]string    // added to the sessions topic's configs
	writer          sessionwriter.Config // the writers' CommitInterval, After, ClientHooks and Registerer
}

func newRig(t *testing.T, o rigOpts) *rig {
	t.Helper()
	keys(t)
	if o.brokers == nil {
		o.brokers = harness.Kafka(t)
	}
	if o.publishTimeout == 0 {
		o.publishTimeout = 2 * time.Second
	}
	g := &rig{brokers: o.brokers, writerOpts: o.writer}
	g.admin = newClient(t, g.brokers, kgo.MetadataMinAge(100*time.Millisecond)) // harness.Topic waits on metadata
	g.events = harness.Topic(t, g.admin, 3)
	sessionsConfigs := harness.TopicConfigs(config.Prefix + "TOPIC_SESSIONS")
	for k, v := range o.sessionsConfigs {
		sessionsConfigs[k] = &v
	}
	g.sessions = harness.TopicWith(t, g.admin, 3, sessionsConfigs)
	g.updates = harness.Topic(t, g.admin, 3)
	g.prod = newClient(t, g.brokers, kgo.RequiredAcks(kgo.AllISRAcks()), kgo.ProducerLinger(0),
		kgo.RetryBackoffFn(func(int) time.Duration { return 100 * time.Millisecond }), kgo.MetadataMinAge(100*time.Millisecond))

	srv := httptest.NewServer(http.HandlerFunc(g.record))
	t.Cleanup(srv.Close)
	g.url = srv.URL + "/webhooks"

	sim, err := paysim.New(paysim.Config{
		Clock: paysim.NewFakeClock(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)),
		Projects: []paysim.Project{paysim.DevProject(project, &partner.PublicKey, g.url),
			paysim.DevProject(projectB, &partner.PublicKey, g.url+"/"+projectB)},
		ServiceKey: serviceKey,
		Logger:     testLogger(t),
		Seed:       7,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	g.sim = sim
	signer := signing.NewRSASigner(partner, signing.PKCS1v15)
	if g.api, err = payapi.New(payapi.Config{BaseURL: sim.URL(), Version: 1, Project: project, Signer: signer,
		Projects: []payapi.Project{{ID: projectB, Signer: signer}}}); err != nil {
		t.Fatal(err)
	}
	g.writer = g.newWriter(t, "1")
	g.ingress = g.newIngress(t, g.writer, o.publishTimeout, o.deliveryTimeout)
	g.target = g.ingress
	return g
}

// newWriter starts a session writer (one replica's, named by replica) on
// the rig's topics.
func (g *rig) newWriter(t *testing.T, replica string) *sessionwriter.Writer {
	t.Helper()
	dec, err := codec.NewDecoder(codec.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := sessionwriter.New(sessionwriter.Config{
		Kafka:   []kgo.Opt{kgo.SeedBrokers(g.brokers...), kgo.FetchMaxWait(100 * time.Millisecond), kgo.SessionTimeout(6 * time.Second)},
		GroupID: "writer-" + g.updates, TransactionalID: "writer-" + g.updates + "-" + replica,
		UpdatesTopic: g.updates, SessionsTopic: g.sessions, EventsTopic: g.events,
		Decoder: dec, Encoder: encoder(t), Clock: g.simNow, Logger: testLogger(t),
		CommitInterval: g.writerOpts.CommitInterval, After: g.writerOpts.After,
		ClientHooks: g.writerOpts.ClientHooks, Registerer: g.writerOpts.Registerer,
	})
	if err != nil {
		t.Fatal(err)
	}
	harness.Background(t, "session writer "+replica, w.Run)
	return w
}

// writerCaughtUp waits until the session writers committed every update
// on the updates topic: what the topics hold then is final.
func (g *rig) writerCaughtUp(t *testing.T) {
	t.Helper()
	adm := kadm.NewClient(g.admin)
	harness.Eventually(t, 60*time.Second, "session writer caught up with "+g.updates, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ends, err := adm.ListEndOffsets(ctx, g.updates)
		if err != nil {
			return false
		}
		done, err := adm.FetchOffsets(ctx, "writer-"+g.updates)
		if err != nil {
			return false
		}
		caught := true
		ends.Each(func(o kadm.ListedOffset) {
			if c, ok := done.Lookup(g.updates, o.Partition); o.Offset > 0 && (!ok || c.At < o.Offset) {
				caught = false
			}
		})
		return caught
	})
}

// newIngress builds a connector's ingress (a fresh process: own dedupe
// cache) publishing to the rig's updates topic, beside session writer w
// (its local lookup; none when nil) and confirming other sessions with
// the rig's API client.
func (g *rig) newIngress(t *testing.T, w *sessionwriter.Writer, publishTimeout, deliveryTimeout time.Duration) *ingress.Ingress {
	t.Helper()
	var sessions ingress.Sessions // nil without w: every session confirmed by session/status
	if w != nil {
		sessions = w
	}
	in, err := ingress.New(ingress.Config{
		Verifier:        signing.NewRSAVerifier(signing.PKCS1v15, &serviceKey.PublicKey),
		DefaultProject:  project,
		Projects:        []string{projectB},
		Sessions:        sessions,
		API:             g.api,
		Producer:        g.prod,
		Encoder:         encoder(t),
		UpdatesTopic:    g.updates,
		PublishTimeout:  publishTimeout,
		DeliveryTimeout: deliveryTimeout,
		Registerer:      prometheus.NewRegistry(),
		Logger:          testLogger(t),
		Now:             g.simNow,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Shutdown(context.Background()) })
	return in
}

func (g *rig) simNow() time.Time { return g.sim.Now() }

// newReconciler starts a reconciler on the rig's sessions topic, on the
// sandbox's clock.
func (g *rig) newReconciler(t *testing.T, policy reconcile.ConfirmPolicy) *reconcile.Reconciler {
	t.Helper()
	r, err := reconcile.New(reconcile.Config{
		Brokers: g.brokers, Group: "reconciler-" + g.sessions, SessionsTopic: g.sessions, UpdatesTopic: g.updates,
		Producer: g.prod, Encoder: encoder(t), API: g.api, Confirm: policy,
		QuietAfter: 5 * time.Minute, MaxBackoff: 10 * time.Minute, Tick: 20 * time.Millisecond,
		Now: g.simNow, Logger: testLogger(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	harness.Background(t, "reconciler", r.Run)
	return r
}

// record remembers a webhook attempt and forwards it to the connector.
func (g *rig) record(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	g.mu.Lock()
	target := g.target
	g.mu.Unlock()
	target.ServeHTTP(rec, r)
	g.mu.Lock()
	g.deliveries = append(g.deliveries, delivery{body: body, sig: r.Header.Get("X-PARTNER-SIGN"), code: rec.Code})
	g.mu.Unlock()
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

func (g *rig) attempts() []delivery {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]delivery(nil), g.deliveries...)
}

// idle waits until the sandbox has no processing or webhook in flight.
func (g *rig) idle(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := g.sim.WaitIdle(ctx); err != nil {
		t.Fatalf("sandbox not idle: %v", err)
	}
}

// advance moves the sandbox clock in steps, letting due work run.
func (g *rig) advance(t *testing.T, total, step time.Duration) {
	t.Helper()
	for d := time.Duration(0); d < total; d += step {
		g.sim.Advance(step)
		g.idle(t)
	}
}

func newClient(t *testing.T, brokers []string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// readAll returns every committed record of topic, in offset order per
// partition, once the reader reached the end offsets (of the sessions and
// webhook-events topics: once the session writer caught up).
func (g *rig) readAll(t *testing.T, topic string) []*kgo.Record {
	t.Helper()
	if topic == g.sessions || topic == g.events {
		g.writerCaughtUp(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ends, err := kadm.NewClient(g.admin).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatalf("end offsets %s: %v", topic, err)
	}
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			want[o.Partition] = o.Offset
		}
	})
	cl := newClient(t, g.brokers, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords()) // a transaction's marker may end a partition
	defer cl.Close()
	var out []*kgo.Record
	for len(want) > 0 {
		f := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("reading %s: %v", topic, ctx.Err())
		}
		f.EachRecord(func(r *kgo.Record) {
			if !r.Attrs.IsControl() {
				out = append(out, r)
			}
			if r.Offset+1 >= want[r.Partition] {
				delete(want, r.Partition)
			}
		})
	}
	return out
}

// stateDecoder reads session states as the connector's reconciler does.
var stateDecoder = func() reconcile.CodecStateDecoder {
	dec, err := codec.NewDecoder(codec.DecoderConfig{})
	if err != nil {
		panic(err)
	}
	return reconcile.CodecStateDecoder{Decoder: dec}
}()

func decodeState(t *testing.T, r *kgo.Record) *codec.SessionState {
	t.Helper()
	st, err := stateDecoder.DecodeSessionState(r.Value)
	if err != nil {
		t.Fatalf("%s/%d: %v", r.Topic, r.Offset, err)
	}
	return st
}

func decodeEvent(t *testing.T, r *kgo.Record) *codec.WebhookEvent {
	t.Helper()
	schema, err := codec.Schema(schemas.WebhookEvent)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Value) < 10 || r.Value[0] != 0xC3 {
		t.Fatalf("%s/%d: not single-object encoded", r.Topic, r.Offset)
	}
	var ev codec.WebhookEvent
	if _, err := schema.Decode(r.Value[10:], &ev); err != nil {
		t.Fatalf("%s/%d: %v", r.Topic, r.Offset, err)
	}
	return &ev
}

// publishResponse proposes a session state to the session writer as the
// command pipeline does with an API response.
func (g *rig) publishResponse(t *testing.T, s *payapi.Session) {
	t.Helper()
	st := sessionstate.FromAPI(s, string(codec.SourceAPIResponse), g.sim.Now(), 1)
	v, err := codec.EncodeSingleObject(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.prod.ProduceSync(context.Background(), &kgo.Record{Topic: g.updates, Key: []byte(s.ID), Value: v}).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// testLogger is the logger of a test's connector parts and sandbox: its
// log is printed if the test fails (WEBHOOK_TEST_LOG=1: as it runs).
func testLogger(t *testing.T) *slog.Logger { return harness.Logger(t, "WEBHOOK_TEST_LOG") }
