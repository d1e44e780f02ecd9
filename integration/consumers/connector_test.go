package consumers

import (
	"bytes"
	"net/http/httptest"
	"os/exec"
	"strings"
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

// TestKcatToPythonThroughPipeline is the contract as the other teams see it: kcat writes a JSON
// init-payout command keyed by its idempotency key, the connector's command pipeline (with the
// schema registry configured, so outcomes use the Confluent wire format) executes it against the
// sandbox, and the Python consumer reads the command result and the session state with
// read_committed through the registry.
func TestKcatToPythonThroughPipeline(t *testing.T) {
	kcat := Kcat(t)
	Python(t) // prepare the virtualenv before the clock of the run starts
	brokers := harness.Kafka(t)
	regURL := harness.SchemaRegistry(t)
	reg := harness.RegistryClient(t)

	partner, err := signing.GenerateKey(2048)
	if err != nil {
		t.Fatal(err)
	}
	service, err := signing.GenerateKey(2048)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := paysim.New(paysim.Config{Projects: []paysim.Project{paysim.DevProject("proj-kcat", &partner.PublicKey, "")},
		ServiceKey: service, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	api, err := payapi.New(payapi.Config{BaseURL: srv.URL, Version: 2, Project: "proj-kcat",
		Signer: signing.NewRSASigner(partner, signing.PKCS1v15)})
	if err != nil {
		t.Fatal(err)
	}

	cl := harness.NewClient(t)
	topics := pipeline.Topics{Commands: map[codec.CommandKind]string{codec.KindInitPayout: harness.Topic(t, cl, 1)},
		Retry: harness.Topic(t, cl, 1), Results: harness.Topic(t, cl, 1), SessionUpdates: harness.Topic(t, cl, 1),
		DeadLetter: harness.Topic(t, cl, 1), Attempts: harness.Topic(t, cl, 1)}
	dec, _ := codec.NewDecoder(codec.DecoderConfig{Registry: reg})
	enc, _ := codec.NewEncoder(codec.EncoderConfig{Registry: reg})
	id := randomID()
	p, err := pipeline.New(pipeline.Config{
		Kafka: []kgo.Opt{kgo.SeedBrokers(brokers...), kgo.FetchMaxWait(100 * time.Millisecond),
			kgo.SessionTimeout(6 * time.Second)},
		GroupID: "kcat-" + id, TransactionalID: "kcat-" + id, Topics: topics, API: api,
		Decoder: dec, Encoder: enc, BatchDeadline: 3 * time.Second, JitterSeed: 1,
		Retry: pipeline.RetryPolicy{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, MaxAttempts: 4},
	})
	if err != nil {
		t.Fatal(err)
	}
	harness.Background(t, "pipeline Run", p.Run)

	key := "kcat-payout-" + id
	command := `{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4111111111111111",` +
		`"expiration_month":"12","expiration_year":"29"}}},"amount":15000,"currency":"rub","metadata":{"payroll":"2026-11"}}`
	cmd := exec.Command(kcat, "-P", "-b", strings.Join(brokers, ","), "-t", topics.Commands[codec.KindInitPayout], "-K", "|")
	cmd.Stdin = strings.NewReader(key + "|" + command + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kcat -P: %v\n%s", err, stderr.String())
	}

	// One command result and at least one session state (the pipeline writes its candidates to the
	// session-updates topic, from which the session writer derives payments.sessions); the consumer
	// stops after two records.
	got := ReadOutcomes(t, ReadConfig{Brokers: brokers, Topics: []string{topics.Results, topics.SessionUpdates}, Count: 2,
		Registry: regURL, Timeout: 90 * time.Second})
	var result, state *Outcome
	for i := range got {
		switch got[i].Schema {
		case "command_result":
			result = &got[i]
		case "session_state":
			state = &got[i]
		}
		if got[i].Format != "confluent" {
			t.Errorf("%s: format %s, want confluent", got[i].Schema, got[i].Format)
		}
		if strings.Contains(jsonOf(got[i].Value), "4111111111111111") {
			t.Errorf("%s carries the full card number", got[i].Schema)
		}
	}
	if result == nil || state == nil {
		t.Fatalf("want a command_result and a session_state, got %+v", got)
	}
	if *result.Key != key || result.Value["status"] != "accepted" || result.Value["kind"] != "init_payout" {
		t.Errorf("command result: key %v value %s", *result.Key, jsonOf(result.Value))
	}
	sess := state.Value["session"].(map[string]any)
	if *state.Key != sess["id"] || result.Value["session_id"] != sess["id"] || state.Value["source"] != "api_response" {
		t.Errorf("session state: key %v value %s (result session %v)", *state.Key, jsonOf(state.Value), result.Value["session_id"])
	}
	op := sess["operations"].([]any)[0].(map[string]any)
	if op["kind"] != "payout" || op["amount"] != float64(15000) {
		t.Errorf("operation %s", jsonOf(op))
	}
	if inst, _ := op["instrument"].(map[string]any); inst == nil || inst["card_last4"] != "1111" {
		t.Errorf("instrument summary %s", jsonOf(op["instrument"]))
	}
}
