package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/schemas"
)

// TestProduceLookupOnly runs `connector produce` with
// PAYSESSION_REGISTRY_LOOKUP_ONLY against a real registry (Apicurio) and
// broker: with the subject missing it fails naming the subject and
// registers nothing; once the schema is registered, it writes the command
// under the registered id.
func TestProduceLookupOnly(t *testing.T) {
	url := harness.SchemaRegistry(t)
	cl := harness.NewClient(t)
	topic := harness.Topic(t, cl, 1)
	subject := topic + "-value"
	env := map[string]string{
		"PAYSESSION_KAFKA_BROKERS":        strings.Join(harness.Kafka(t), ","),
		"PAYSESSION_REGISTRY_URL":         url,
		"PAYSESSION_REGISTRY_LOOKUP_ONLY": "true",
		"PAYSESSION_TOPIC_CAPTURE":        topic,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	produce := func() (int, string) {
		var out, errOut bytes.Buffer
		code := runWithInput(ctx, []string{"produce", "-key", "cap-lookup-0001", "capture"}, func(k string) string { return env[k] },
			strings.NewReader(`{"session_id":"ps_4242"}`+"\n"), &out, &errOut)
		return code, errOut.String()
	}

	code, errOut := produce()
	if code == exitOK || !strings.Contains(errOut, "look up capture for subject "+subject) {
		t.Fatalf("produce with the subject missing: exit %d, stderr\n%s\nwant a failure naming subject %s", code, errOut, subject)
	}
	reg := harness.RegistryClient(t)
	if _, err := reg.SchemaByVersion(ctx, subject, -1); err == nil {
		t.Fatalf("lookup-only produce registered subject %s", subject)
	}

	text, err := schemas.Get(schemas.Name("capture"))
	if err != nil {
		t.Fatal(err)
	}
	ss, err := reg.CreateSchema(ctx, subject, sr.Schema{Schema: text, Type: sr.TypeAvro})
	if err != nil {
		t.Fatal(err)
	}
	if code, errOut := produce(); code != exitOK {
		t.Fatalf("produce with the schema registered: exit %d\n%s", code, errOut)
	}
	recs := harness.ReadCommitted(t, harness.Kafka(t), topic, 1)
	if v := recs[0].Value; len(v) < 5 || v[0] != 0 || int(uint32(v[1])<<24|uint32(v[2])<<16|uint32(v[3])<<8|uint32(v[4])) != ss.ID {
		t.Errorf("record value does not carry the registered schema id %d: % x", ss.ID, v[:min(len(v), 5)])
	}
}

// TestStartLookupOnlyNamesMissingSubjects: with
// PAYSESSION_REGISTRY_LOOKUP_ONLY the connector's start (connector.NewCodecs,
// which connector.New runs first) registers nothing and fails naming every
// outcome subject the registry (Apicurio) does not hold; once they are
// registered, it starts.
func TestStartLookupOnlyNamesMissingSubjects(t *testing.T) {
	url := harness.SchemaRegistry(t)
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	prefix := "test.lookup." + hex.EncodeToString(suffix[:]) + "."
	env := map[string]string{
		"PAYSESSION_KAFKA_BROKERS":        "127.0.0.1:9",
		"PAYSESSION_REGISTRY_URL":         url,
		"PAYSESSION_REGISTRY_LOOKUP_ONLY": "true",
	}
	outcomes := map[string]schemas.Name{
		"COMMAND_RESULTS": schemas.CommandResult, "SESSIONS": schemas.SessionState, "SESSION_UPDATES": schemas.SessionState,
		"WEBHOOK_EVENTS": schemas.WebhookEvent, "DEAD_LETTER": schemas.DeadLetter,
		"WALLET_BALANCES": schemas.WalletBalance, "FPS_BANKS": schemas.FPSBanks,
	}
	for v := range outcomes {
		env["PAYSESSION_TOPIC_"+v] = prefix + strings.ToLower(v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cfg, err := config.Load(ctx, clientEnv(envconfig.MapLookuper(env)))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	_, _, err = connector.NewCodecs(ctx, cfg, log)
	if err == nil {
		t.Fatal("NewCodecs succeeded with no outcome subject registered")
	}
	reg := harness.RegistryClient(t)
	for v, n := range outcomes {
		subject := prefix + strings.ToLower(v) + "-value"
		if !strings.Contains(err.Error(), "look up "+string(n)+" for subject "+subject) {
			t.Errorf("start error does not name subject %s:\n%v", subject, err)
		}
		if _, lerr := reg.SchemaByVersion(ctx, subject, -1); lerr == nil {
			t.Errorf("lookup-only start registered %s", subject)
		}
	}
	for v, n := range outcomes {
		text, err := schemas.Get(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := reg.CreateSchema(ctx, prefix+strings.ToLower(v)+"-value", sr.Schema{Schema: text, Type: sr.TypeAvro}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := connector.NewCodecs(ctx, cfg, log); err != nil {
		t.Fatalf("NewCodecs with every subject registered: %v", err)
	}
}
