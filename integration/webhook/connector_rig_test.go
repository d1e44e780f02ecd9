package webhook

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/integration/harness/inproc"
	"github.com/paysession/paysession/internal/codec"
)

// Projects of the in-process connector: the default one and a second with
// its own key (PAYSESSION_API_EXTRA_PROJECTS).
const (
	mainProject   = "e2e-main"
	secondProject = "e2e-second"
)

// connRig is a whole connector in process (inproc.Rig) on the real broker,
// with every topic fresh, in front of a sandbox that serves two partner
// projects, each with its own key, and sends webhooks to the connector:
// the default project's to PAYSESSION_WEBHOOK_PATH, the second's to its
// own path below it (a webhook names no project; the path tells).
type connRig struct {
	*inproc.Rig
	cl  *kgo.Client
	dec *codec.Decoder
}

// startConnector starts a connRig; each with function may change the
// connector's variables before it starts.
func startConnector(t *testing.T, with ...func(vars map[string]string)) *connRig {
	t.Helper()
	rig := inproc.NewRig(t, inproc.Project(mainProject), inproc.ExtraProject(secondProject))
	for _, f := range with {
		f(rig.Vars)
	}
	rig.Start(t, inproc.LogTo(harness.FailureLog(t, "WEBHOOK_TEST_LOG")))
	dec, err := codec.NewDecoder(codec.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return &connRig{Rig: rig, cl: harness.NewClient(t, kgo.ProducerLinger(0)), dec: dec}
}

// send produces a JSON command of kind under key.
func (r *connRig) send(t *testing.T, kind codec.CommandKind, key, value string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec := &kgo.Record{Topic: r.Topic(strings.ToUpper(string(kind))), Key: []byte(key), Value: []byte(value)}
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
	return await(t, r, r.Topic("COMMAND_RESULTS"), "the result of "+key, func(c *codec.CommandResult) bool { return c.IdempotencyKey == key })
}

// state waits for a payments.sessions record of session id that satisfies match.
func (r *connRig) state(t *testing.T, id, what string, match func(*codec.SessionState) bool) *codec.SessionState {
	t.Helper()
	return await(t, r, r.Topic("SESSIONS"), id+": "+what, func(s *codec.SessionState) bool { return s.Session.ID == id && match(s) })
}

// event waits for a payments.webhook-events record of session id that satisfies match.
func (r *connRig) event(t *testing.T, id, what string, match func(*codec.WebhookEvent) bool) *codec.WebhookEvent {
	t.Helper()
	return await(t, r, r.Topic("WEBHOOK_EVENTS"), id+": "+what, func(e *codec.WebhookEvent) bool { return e.SessionID == id && match(e) })
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
