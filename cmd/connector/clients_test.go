package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/kit"
	"github.com/paysession/paysession/connector/lookup"
)

func TestSplitKey(t *testing.T) {
	tests := []struct {
		name, line, key, rest, err string
	}{
		{"key member removed", `{"idempotency_key":"k-0001","session_id":"ps_1"}`, "k-0001", `{"session_id":"ps_1"}`, ""},
		{"members kept as written, in place", `{"session_id":"ps_1", "idempotency_key":"k-0002",  "amount":5}`, "k-0002", `{"session_id":"ps_1","amount":5}`, ""},
		{"metadata byte for byte", `{"idempotency_key":"k-0003","metadata":{"note":"A&B <ltd>","x":"\u0026"}}`, "k-0003", `{"metadata":{"note":"A&B <ltd>","x":"\u0026"}}`, ""},
		{"names compare unescaped, as the connector's", `{"idempotency\u005fkey":"k-0005","session_id":"ps_1"}`, "k-0005", `{"session_id":"ps_1"}`, ""},
		{"no key member", `{"session_id":"ps_1"}`, "", "", "no member idempotency_key"},
		{"duplicate member", `{"idempotency_key":"a-01","idempotency_key":"b-01"}`, "", "", "duplicate member idempotency_key"},
		{"key not a string", `{"idempotency_key":12345}`, "", "", "must be a string"},
		{"not an object", `["k"]`, "", "", "not a JSON object"},
		{"two values", `{"idempotency_key":"k-0001"} {}`, "", "", "more than one JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, rest, err := splitKey([]byte(tt.line), "idempotency_key")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || key != tt.key || string(rest) != tt.rest {
				t.Fatalf("got %q %s %v", key, rest, err)
			}
		})
	}
}

// kfakeEnv returns the variables of produce and tail pointed at an
// in-process cluster holding every default topic.
func kfakeEnv(t *testing.T) (map[string]string, *kgo.Client) {
	t.Helper()
	topics := kit.DefaultTopics()
	names := []string{topics.CommandResults, topics.DeadLetter, topics.Commands[kit.KindCapture], topics.Commands[kit.KindInitPayout]}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, names...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	// Only the client sections count: a broken API variable of `run` does
	// not stop produce or tail.
	return map[string]string{"PAYSESSION_KAFKA_BROKERS": strings.Join(c.ListenAddrs(), ","),
		"PAYSESSION_API_VERSION": "3"}, cl
}

func TestProduceWritesCheckedCommands(t *testing.T) {
	env, cl := kfakeEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	in := `{"idempotency_key":"cap-0001","session_id":"ps_11","amount":500,"currency":"rub"}
{"idempotency_key":"cap-0002","session_id":"ps_12"}
`
	var out, errOut bytes.Buffer
	if code := runWithInput(ctx, []string{"produce", "capture"}, func(k string) string { return env[k] }, strings.NewReader(in), &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	recs := readN(t, cl, "payments.commands.capture", 2)
	dec, _ := kit.NewDecoder(kit.DecoderConfig{})
	for i, want := range []string{"ps_11", "ps_12"} {
		var c kit.Capture
		if err := dec.Decode(ctx, recs[i].Value, &c); err != nil {
			t.Fatal(err)
		}
		if recs[i].Value[0] != 0xC3 || c.SessionID != want || string(recs[i].Key) != []string{"cap-0001", "cap-0002"}[i] {
			t.Fatalf("record %d: key %s value %+v", i, recs[i].Key, c)
		}
	}

	// A bad line is refused naming its line and field; nothing of it is written.
	bad := `{"idempotency_key":"cap-0003","session_id":"ps_13","amount":-5,"currency":"rub"}`
	errOut.Reset()
	if code := runWithInput(ctx, []string{"produce", "-format", "json", "capture"}, func(k string) string { return env[k] }, strings.NewReader(bad), &out, &errOut); code != exitUsage {
		t.Fatalf("bad line: exit %d", code)
	}
	if !strings.Contains(errOut.String(), "line 1") || !strings.Contains(errOut.String(), "amount") {
		t.Fatalf("bad line: %s", errOut.String())
	}
}

func TestTailPrintsMaskedJSON(t *testing.T) {
	env, cl := kfakeEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	result, _ := kit.EncodeSingleObject(&kit.CommandResult{IdempotencyKey: "cap-0001", Kind: kit.KindCapture,
		Status: kit.StatusAccepted, CompletedAt: time.Unix(1700000000, 0).UTC()})
	letter, _ := kit.EncodeSingleObject(&kit.DeadLetter{OriginalTopic: "payments.commands.init-payout",
		OriginalValue: []byte(`{"number":"4111111111111111"}`), OriginalHeaders: []kit.Header{}, Error: "invalid", FailedAt: time.Unix(1700000000, 0).UTC()})
	for _, r := range []*kgo.Record{
		{Topic: "payments.command-results", Key: []byte("cap-0001"), Value: result},
		{Topic: "payments.dead-letter", Key: []byte("bad-0001"), Value: letter, Headers: []kgo.RecordHeader{{Key: kit.HeaderErrorCode, Value: []byte("invalid_request")}}},
	} {
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct{ topic, want string }{
		{"payments.command-results", `"status":"accepted"`},
		{"payments.dead-letter", `"paysession-error-code":"invalid_request"`},
	} {
		var out, errOut bytes.Buffer
		if code := run(ctx, []string{"tail", "-n", "1", "-timeout", "15s", tt.topic}, func(k string) string { return env[k] }, &out, &errOut); code != exitOK {
			t.Fatalf("tail %s: exit %d: %s", tt.topic, code, errOut.String())
		}
		var line lookup.Line
		if err := json.Unmarshal(out.Bytes(), &line); err != nil || line.Error != "" {
			t.Fatalf("tail %s printed %s (%v)", tt.topic, out.String(), err)
		}
		if !strings.Contains(out.String(), tt.want) || strings.Contains(out.String(), "4111111111111111") {
			t.Fatalf("tail %s printed %s", tt.topic, out.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := run(ctx, []string{"tail", "payments.commands.capture"}, func(k string) string { return env[k] }, &out, &errOut); code != exitUsage ||
		!strings.Contains(errOut.String(), "card data") {
		t.Fatalf("tail of a command topic: exit %d: %s", code, errOut.String())
	}
}

func readN(t *testing.T, cl *kgo.Client, topic string, n int) []*kgo.Record {
	t.Helper()
	rd, err := kgo.NewClient(kgo.SeedBrokers(cl.OptValue(kgo.SeedBrokers).([]string)...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var got []*kgo.Record
	for len(got) < n && ctx.Err() == nil {
		got = append(got, rd.PollFetches(ctx).Records()...)
	}
	if len(got) < n {
		t.Fatalf("%s: %d records, want %d", topic, len(got), n)
	}
	return got
}

// TestHelpListsProduceAndTail: the new subcommands are in connector --help,
// and each explains its flags.
func TestHelpListsProduceAndTail(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, func(string) string { return "" }, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	help := out.String()
	for _, want := range []string{"produce", "tail"} {
		if !strings.Contains(help, "  "+want+" ") {
			t.Errorf("--help does not list %s:\n%s", want, help)
		}
		out.Reset()
		errOut.Reset()
		if code := run(context.Background(), []string{want, "-h"}, func(string) string { return "" }, &out, &errOut); code != exitOK ||
			!strings.Contains(out.String(), "Usage: connector "+want) {
			t.Errorf("%s -h: exit %d\n%s", want, code, out.String())
		}
	}
}
