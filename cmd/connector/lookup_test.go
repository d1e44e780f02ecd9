package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/kit"
	"github.com/paysession/paysession/connector/lookup"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/integration/harness/inproc"
	"github.com/paysession/paysession/internal/paysim"
)

// lookupPayout is an init_payout to the sandbox's succeeding test card.
const lookupPayout = `{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4111111111111111",` +
	`"expiration_month":"12","expiration_year":"29"}}},"amount":1000,"currency":"rub","customer":{"reference":"c-1"}}`

// runLookupCmd runs `connector lookup key` under env and returns its exit
// code, its lines and its stderr.
func runLookupCmd(t *testing.T, env map[string]string, key string) (int, []lookup.Line, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	code := run(ctx, []string{"lookup", "-timeout", "30s", key}, func(k string) string { return env[k] }, &out, &errOut)
	var lines []lookup.Line
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if l == "" {
			continue
		}
		var line lookup.Line
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("lookup printed %q: %v", l, err)
		}
		lines = append(lines, line)
	}
	if strings.Contains(out.String()+errOut.String(), "4111111111111111") {
		t.Fatalf("lookup printed a card number:\n%s%s", out.String(), errOut.String())
	}
	return code, lines, errOut.String()
}

// records lists the Record of each line.
func records(lines []lookup.Line) string {
	var out []string
	for _, l := range lines {
		out = append(out, l.Record)
	}
	return strings.Join(out, ",")
}

// resultStatus is the status of the first result line.
func resultStatus(lines []lookup.Line) string {
	for _, l := range lines {
		if v, ok := l.Value.(map[string]any); ok && l.Record == lookup.RecordResult {
			return fmt.Sprint(v["status"])
		}
	}
	return ""
}

// TestLookupOnTheBroker runs a connector against the sandbox on the real
// broker and looks up an accepted command (its result and its session's
// state), an invalid one whose key is a card number (by its
// invalid-<topic>-<partition>-<offset> key: result and dead letter), a
// command parked while the API fails (its retry record), and a key the
// topics do not hold (exit 1).
func TestLookupOnTheBroker(t *testing.T) {
	rig := inproc.NewRig(t, inproc.Project("lookup"), inproc.NoWebhooks())
	maps.Copy(rig.Vars, map[string]string{
		"PAYSESSION_WEBHOOK_ENABLED":        "false",
		"PAYSESSION_API_RETRY_MAX_ATTEMPTS": "1000",
		"PAYSESSION_API_RETRY_BACKOFF_MAX":  "500ms",
		"PAYSESSION_RECONCILER_INTERVAL":    "0",
	})
	sim, vars := rig.Sandbox, rig.Vars
	cfg := rig.Start(t, inproc.LogTo(harness.FailureLog(t, "LOOKUP_TEST_LOG"))).Config

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl := harness.NewClient(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	topic := cfg.Topics.Command["init_payout"]
	produce := func(key, value string) *kgo.Record {
		t.Helper()
		r := &kgo.Record{Topic: topic, Key: []byte(key), Value: []byte(value)}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	produce("lookup-accepted-01", lookupPayout)
	bad := produce("4111111111111111", `{"amount":-1}`)
	invalidKey := fmt.Sprintf("invalid-%s-%d-%d", topic, bad.Partition, bad.Offset)

	var lines []lookup.Line
	harness.Eventually(t, 60*time.Second, "the accepted command's result and session state", func() bool {
		code, l, _ := runLookupCmd(t, vars, "lookup-accepted-01")
		lines = l
		return code == exitOK && strings.Contains(records(l), "result") && strings.Contains(records(l), "session")
	})
	for _, l := range lines {
		if l.Error != "" {
			t.Errorf("%s line: %s", l.Record, l.Error)
		}
	}
	if got := resultStatus(lines); records(lines) != "result,session" || got != string(kit.StatusAccepted) {
		t.Errorf("accepted command: %s, status %s", records(lines), got)
	}
	harness.Eventually(t, 30*time.Second, "the invalid command's result and dead letter", func() bool {
		code, l, _ := runLookupCmd(t, vars, invalidKey)
		lines = l
		return code == exitOK && strings.Contains(records(l), "result") && strings.Contains(records(l), "dead_letter")
	})
	if got := resultStatus(lines); got != string(kit.StatusInvalid) {
		t.Errorf("invalid command's result status %s", got)
	}

	if err := sim.SetFaults(paysim.Faults{ErrorRate: 1}); err != nil {
		t.Fatal(err)
	}
	produce("lookup-parked-01", lookupPayout)
	harness.Eventually(t, 60*time.Second, "the parked command's retry record", func() bool {
		code, l, _ := runLookupCmd(t, vars, "lookup-parked-01")
		lines = l
		return code == exitOK && strings.HasPrefix(records(l), "retry")
	})
	if lines[0].Headers["paysession-key"] != "lookup-parked-01" || lines[0].Value != nil {
		t.Errorf("retry line %+v", lines[0])
	}

	code, l, stderr := runLookupCmd(t, vars, "lookup-nobody-01")
	if code != exitFailed || len(l) != 0 || !strings.Contains(stderr, "nothing of lookup-nobody-01") {
		t.Errorf("unknown key: exit %d, %d lines, %s", code, len(l), stderr)
	}
}
