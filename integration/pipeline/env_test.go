package pipeline_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/pipeline"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/paysim"
	"github.com/paysession/paysession/internal/signing"
)

const project = "proj-1"

var keys struct {
	once             sync.Once
	partner, service *rsa.PrivateKey
	err              error
}

// testKeys generates the partner and service key pairs once per binary.
func testKeys(t testing.TB) (partner, service *rsa.PrivateKey) {
	t.Helper()
	keys.once.Do(func() {
		if keys.partner, keys.err = signing.GenerateKey(2048); keys.err == nil {
			keys.service, keys.err = signing.GenerateKey(2048)
		}
	})
	if keys.err != nil {
		t.Fatal(keys.err)
	}
	return keys.partner, keys.service
}

// env is one end-to-end setup: sandbox behind a fault proxy, API client,
// topics on the real broker, and the outcome reader.
type env struct {
	seeds  []string
	sim    *paysim.Server
	proxy  *faultProxy
	api    *payapi.Client
	topics pipeline.Topics
	out    *outcomes
	cl     *kgo.Client // plain producer
	id     string
	url    string // sandbox base URL (through the proxy)
}

type envOptions struct {
	kinds      []codec.CommandKind // command topics to create (default all)
	partitions int32               // of command and retry topics (default 1)
	faults     paysim.Faults
}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	seeds := harness.Kafka(t) // first: skips the test in -short mode
	if len(o.kinds) == 0 {
		o.kinds = codec.Kinds()
	}
	if o.partitions == 0 {
		o.partitions = 1
	}
	partner, service := testKeys(t)
	sim, err := paysim.New(paysim.Config{
		Projects:   []paysim.Project{paysim.DevProject(project, &partner.PublicKey, "")},
		ServiceKey: service, Seed: 1, Faults: o.faults,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	proxy := newFaultProxy(sim.Handler())
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	api, err := payapi.New(payapi.Config{BaseURL: srv.URL, Project: project,
		Signer: signing.NewRSASigner(partner, signing.PKCS1v15)})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{seeds: seeds, sim: sim, proxy: proxy, api: api, id: randomID(), url: srv.URL}
	e.cl = harness.NewClient(t)
	e.topics = pipeline.Topics{Commands: map[codec.CommandKind]string{},
		Retry: harness.Topic(t, e.cl, o.partitions), Results: harness.Topic(t, e.cl, 1),
		SessionUpdates: harness.Topic(t, e.cl, 1), DeadLetter: harness.Topic(t, e.cl, 1), Attempts: harness.Topic(t, e.cl, 1)}
	for _, k := range o.kinds {
		e.topics.Commands[k] = harness.Topic(t, e.cl, o.partitions)
	}
	e.out = readOutcomes(t, e.seeds, e.topics)
	return e
}

func randomID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// config returns the pipeline configuration of the env.
func (e *env) config() pipeline.Config {
	dec, err := codec.NewDecoder(codec.DecoderConfig{})
	if err != nil {
		panic(err)
	}
	enc, err := codec.NewEncoder(codec.EncoderConfig{})
	if err != nil {
		panic(err)
	}
	return pipeline.Config{
		Kafka: []kgo.Opt{kgo.SeedBrokers(e.seeds...), kgo.FetchMaxWait(100 * time.Millisecond),
			kgo.InstanceID("pipeline-" + e.id), kgo.SessionTimeout(6 * time.Second)},
		GroupID: "pipeline-" + e.id, TransactionalID: "pipeline-" + e.id,
		Topics: e.topics, API: e.api, Decoder: dec, Encoder: enc,
		BatchDeadline: 3 * time.Second, JitterSeed: 1,
		Retry:  pipeline.RetryPolicy{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, MaxAttempts: 4},
		Logger: testLogger(),
	}
}

func testLogger() *slog.Logger {
	level := slog.LevelWarn
	if os.Getenv("PIPELINE_DEBUG") != "" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// start runs a pipeline in this process until the test ends.
func (e *env) start(t *testing.T, mod func(*pipeline.Config)) {
	t.Helper()
	cfg := e.config()
	if mod != nil {
		mod(&cfg)
	}
	p, err := pipeline.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	harness.Background(t, "pipeline Run", p.Run)
}

// produce writes command records with a plain franz-go producer.
func (e *env) produce(t *testing.T, recs ...*kgo.Record) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
}

// command builds a JSON command record of a kind.
func (e *env) command(kind codec.CommandKind, key, value string) *kgo.Record {
	return &kgo.Record{Topic: e.topics.Commands[kind], Key: []byte(key), Value: []byte(value)}
}

// key returns a fresh idempotency key.
func key(prefix string) string { return fmt.Sprintf("%s-%s", prefix, randomID()) }
