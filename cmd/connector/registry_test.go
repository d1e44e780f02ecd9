package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/paysession/paysession/integration/harness"
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

	text, err := schemas.Get(schemas.Capture)
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
