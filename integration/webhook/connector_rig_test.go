package webhook

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/paysim"
)

// Projects of the in-process connector: the default one and a second with
// its own key (PAYSESSION_API_EXTRA_PROJECTS).
const (
	mainProject   = "e2e-main"
	secondProject = "e2e-second"
)

// connRig is a whole connector in process (as connector run builds it from
// its variables) on the real broker, with every topic fresh
// (harness.ConnectorTopics), in front of a sandbox that serves two partner
// projects, each with its own key, and sends webhooks to the connector:
// the default project's to PAYSESSION_WEBHOOK_PATH, the second's to its
// own path below it (a webhook names no project; the path tells).
type connRig struct {
	sim  *paysim.Server
	vars map[string]string
	cl   *kgo.Client
	dec  *codec.Decoder
}

// startConnector starts a connRig; each with function may change the
// connector's variables before it starts.
func startConnector(t *testing.T, with ...func(vars map[string]string)) *connRig {
	t.Helper()
	brokers := harness.Kafka(t)
	webhookL, opsL := harness.Listen(t), harness.Listen(t)
	const hookPath = "/webhooks/paysession"
	hookURL := "http://" + webhookL.Addr().String() + hookPath

	mainDir, secondDir := t.TempDir(), t.TempDir()
	mainKey, service, err := paysim.DevKeys(mainDir)
	if err != nil {
		t.Fatal(err)
	}
	secondKey, _, err := paysim.DevKeys(secondDir)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := paysim.New(paysim.Config{ServiceKey: service, Seed: 15, Logger: testLogger(t), Projects: []paysim.Project{
		paysim.DevProject(mainProject, &mainKey.PublicKey, hookURL),
		paysim.DevProject(secondProject, &secondKey.PublicKey, hookURL+"/"+secondProject),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })

	var suffix [6]byte
	_, _ = rand.Read(suffix[:])
	id := "e2e-" + hex.EncodeToString(suffix[:])
	vars := map[string]string{
		"PAYSESSION_API_BASE_URL":                  sim.URL(),
		"PAYSESSION_API_PROJECT":                   mainProject,
		"PAYSESSION_API_PRIVATE_KEY_FILE":          filepath.Join(mainDir, paysim.DevPartnerPrivate),
		"PAYSESSION_API_EXTRA_PROJECTS":            secondProject + "=" + filepath.Join(secondDir, paysim.DevPartnerPrivate),
		"PAYSESSION_API_SERVICE_PUBLIC_KEY_FILES":  filepath.Join(mainDir, paysim.DevServicePublic),
		"PAYSESSION_KAFKA_BROKERS":                 strings.Join(brokers, ","),
		"PAYSESSION_KAFKA_GROUP_ID":                id,
		"PAYSESSION_KAFKA_TRANSACTIONAL_ID_PREFIX": id,
		"PAYSESSION_KAFKA_SESSION_TIMEOUT":         "6s",
		"PAYSESSION_WEBHOOK_PATH":                  hookPath,
		"PAYSESSION_PIPELINE_BATCH_DEADLINE":       "3s",
		"PAYSESSION_PIPELINE_TRANSACTION_TIMEOUT":  "30s",
		"PAYSESSION_RECONCILER_INTERVAL":           "1s",
		"PAYSESSION_SHUTDOWN_GRACE":                "6s",
		"PAYSESSION_LOG_FORMAT":                    "text",
		"PAYSESSION_LOG_LEVEL":                     "warn",
	}
	for name, topic := range harness.ConnectorTopics(t, harness.NewClient(t), 1, nil) {
		vars[name] = topic
	}
	for _, f := range with {
		f(vars)
	}
	ctx := context.Background()
	cfg, err := config.Load(ctx, envconfig.MapLookuper(vars))
	if err != nil {
		t.Fatal(err)
	}
	c, err := connector.New(ctx, connector.Options{Config: cfg, Logger: testLogger(t), InstanceID: id,
		WebhookListener: webhookL, OpsListener: opsL,
		KafkaOpts: []kgo.Opt{kgo.MetadataMinAge(250 * time.Millisecond), kgo.FetchMaxWait(100 * time.Millisecond)}})
	if err != nil {
		t.Fatalf("connector.New: %v", err)
	}
	harness.Background(t, "connector Run", c.Run)
	dec, err := codec.NewDecoder(codec.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return &connRig{sim: sim, vars: vars, cl: harness.NewClient(t, kgo.ProducerLinger(0)), dec: dec}
}

// topic returns the topic of a PAYSESSION_TOPIC_<name> variable.
func (r *connRig) topic(name string) string { return r.vars[config.Prefix+"TOPIC_"+name] }

// send produces a JSON command of kind under key.
func (r *connRig) send(t *testing.T, kind codec.CommandKind, key, value string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec := &kgo.Record{Topic: r.topic(strings.ToUpper(string(kind))), Key: []byte(key), Value: []byte(value)}
	if err := r.cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		t.Fatalf("produce %s: %v", kind, err)
	}
}

// await reads topic from its start (read_committed), decoding each value
// into a fresh T, until match holds for one; it fails t after 60 s.
func await[T any, P interface {
	*T
	codec.Record
}](t *testing.T, r *connRig, topic, what string, match func(P) bool) P {
	t.Helper()
	cl := harness.NewClient(t, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.FetchMaxWait(200*time.Millisecond))
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		f := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("timed out after 60s waiting on %s for %s", topic, what)
		}
		var found P
		f.EachRecord(func(rec *kgo.Record) {
			v := P(new(T))
			if found != nil || r.dec.DecodeRecord(ctx, rec.Value, v) != nil {
				return
			}
			if match(v) {
				found = v
			}
		})
		if found != nil {
			return found
		}
	}
}

// result waits for the command-result of key.
func (r *connRig) result(t *testing.T, key string) *codec.CommandResult {
	t.Helper()
	return await(t, r, r.topic("COMMAND_RESULTS"), "the result of "+key, func(c *codec.CommandResult) bool { return c.IdempotencyKey == key })
}

// state waits for a payments.sessions record of session id that satisfies match.
func (r *connRig) state(t *testing.T, id, what string, match func(*codec.SessionState) bool) *codec.SessionState {
	t.Helper()
	return await(t, r, r.topic("SESSIONS"), id+": "+what, func(s *codec.SessionState) bool { return s.Session.ID == id && match(s) })
}

// event waits for a payments.webhook-events record of session id that satisfies match.
func (r *connRig) event(t *testing.T, id, what string, match func(*codec.WebhookEvent) bool) *codec.WebhookEvent {
	t.Helper()
	return await(t, r, r.topic("WEBHOOK_EVENTS"), id+": "+what, func(e *codec.WebhookEvent) bool { return e.SessionID == id && match(e) })
}

// accepted waits for key's result and fails unless it is accepted with a session.
func (r *connRig) accepted(t *testing.T, key string) string {
	t.Helper()
	res := r.result(t, key)
	if res.Status != codec.StatusAccepted || res.SessionID == nil {
		t.Fatalf("result of %s: %s %v %v", key, res.Status, deref(res.ErrorCode), deref(res.ErrorDescription))
	}
	return *res.SessionID
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// paymentCommand returns an init_payment command paying with card number pan.
func paymentCommand(pan string, amount int, extra string) string {
	return `{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"` + pan +
		`","expiration_month":"12","expiration_year":"29","security_code":"123"}}},"amount":` + strconv.Itoa(amount) +
		`,"currency":"rub","customer":{"reference":"cust-15"}` + extra + `}`
}

// opOf returns the one operation of a session state.
func opOf(t *testing.T, s *codec.Session) codec.Operation {
	t.Helper()
	if len(s.Operations) != 1 {
		t.Fatalf("session %s has %d operations", s.ID, len(s.Operations))
	}
	return s.Operations[0]
}

// randomKey returns 12 random hex digits for idempotency keys.
func randomKey() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
