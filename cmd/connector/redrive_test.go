package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/kit"
)

// TestRedriveAndInspectCommands: inspect groups the letters with masked
// samples, a dry run prints what it would redrive and writes nothing, a
// key filter redrives that key's letter only and the next run the other.
func TestRedriveAndInspectCommands(t *testing.T) {
	env, cl := kfakeEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	source := "payments.commands.capture"
	for i, k := range []string{"cap-0001", "cap-0002"} {
		letter, _ := kit.EncodeSingleObject(&kit.DeadLetter{OriginalTopic: source, OriginalOffset: int64(100 + i),
			OriginalKey: []byte(k), OriginalValue: []byte(`{"session_id":"ps_1","note":"4111111111111111"}`),
			Error: "invalid", FailedAt: time.Unix(1700000000, 0).UTC()})
		r := &kgo.Record{Topic: "payments.dead-letter", Key: []byte(k), Value: letter, Headers: []kgo.RecordHeader{
			{Key: kit.HeaderErrorCode, Value: []byte("invalid_request")}, {Key: kit.HeaderDeadLetterValue, Value: []byte("original")}}}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	connector := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := run(ctx, args, func(k string) string { return env[k] }, &out, &errOut); code != exitOK {
			t.Fatalf("%s: exit %d: %s", args, code, errOut.String())
		}
		if strings.Contains(out.String()+errOut.String(), "4111111111111111") {
			t.Fatalf("%s printed a card number", args)
		}
		return out.String()
	}
	if out := connector("inspect"); !strings.Contains(out, "dead letters: 2 in 1 groups") || !strings.Contains(out, "2  invalid_request") {
		t.Errorf("inspect printed:\n%s", out)
	}
	if out := connector("redrive", "-dry-run"); strings.Count(out, "would redrive\t") != 2 || !strings.Contains(out, "would redrive: 2") {
		t.Errorf("dry run printed:\n%s", out)
	}
	if out := connector("redrive", "-key", "cap-0002"); !strings.Contains(out, "key cap-0002") || !strings.Contains(out, "redriven: 1") {
		t.Errorf("redrive -key printed:\n%s", out)
	}
	if out := connector("redrive"); !strings.Contains(out, "already redriven\tdead-letter 0/1") || !strings.Contains(out, "key cap-0001") ||
		!strings.Contains(out, "redriven: 1") {
		t.Errorf("redrive printed:\n%s", out)
	}
	keys := map[string]bool{}
	for _, r := range readN(t, cl, source, 2) {
		keys[string(r.Key)] = true
	}
	if !keys["cap-0001"] || !keys["cap-0002"] {
		t.Errorf("redriven keys %v", keys)
	}
}
