package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/kit"
	"github.com/paysession/paysession/connector/lookup"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/config"
)

// TestTailOnTheBroker: on the real broker, tail -e prints a topic's
// records and exits at its end, -o and -t choose the start, -k filters by
// key; a missing topic and an unreachable broker are errors (exit 1), not
// waits. Before -e, tail of a topic ran until -timeout; before the checks,
// a missing topic or an unreachable broker waited for it.
func TestTailOnTheBroker(t *testing.T) {
	cl := harness.NewClient(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	topic := harness.Topic(t, cl, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	for i, k := range []string{"a-01", "b-01", "a-01", "c-01"} {
		v, err := kit.EncodeSingleObject(&kit.CommandResult{IdempotencyKey: k, Kind: kit.KindCapture, Status: kit.StatusAccepted, CompletedAt: base})
		if err != nil {
			t.Fatal(err)
		}
		r := &kgo.Record{Topic: topic, Partition: int32(i % 2), Key: []byte(k), Value: v, Timestamp: base.Add(time.Duration(i) * time.Minute)}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{config.Prefix + "KAFKA_BROKERS": strings.Join(harness.Kafka(t), ",")}
	tail := func(env map[string]string, args ...string) (int, []string, string) {
		var out, errOut bytes.Buffer
		code := run(ctx, append([]string{"tail"}, args...), func(k string) string { return env[k] }, &out, &errOut)
		var keys []string
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var line lookup.Line
			if l != "" && json.Unmarshal([]byte(l), &line) == nil {
				keys = append(keys, line.Key)
			}
		}
		return code, keys, errOut.String()
	}
	tests := []struct {
		name string
		args []string
		want int // records
		key  string
	}{
		{"to the end", []string{"-e", topic}, 4, ""},
		{"key filter", []string{"-e", "-k", "a-01", topic}, 2, "a-01"},
		{"from an offset", []string{"-e", "-o", "1", topic}, 2, ""},
		{"from the end", []string{"-e", "-o", "end", topic}, 0, ""},
		{"from N before the end", []string{"-e", "-o", "-1", topic}, 2, ""},
		{"from a time", []string{"-e", "-t", base.Add(90 * time.Second).Format(time.RFC3339), topic}, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, keys, stderr := tail(env, tt.args...)
			if code != exitOK || len(keys) != tt.want {
				t.Fatalf("exit %d, keys %v, want %d records: %s", code, keys, tt.want, stderr)
			}
			for _, k := range keys {
				if tt.key != "" && k != tt.key {
					t.Errorf("key %s printed with -k %s", k, tt.key)
				}
			}
		})
	}
	t.Run("missing topic", func(t *testing.T) {
		code, _, stderr := tail(env, "-e", "no.such.topic.for.tail")
		if code != exitFailed || !strings.Contains(stderr, "does not exist") {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		// Following, too: the topic is not waited for.
		code, _, stderr = tail(env, "no.such.topic.for.tail")
		if code != exitFailed || !strings.Contains(stderr, "does not exist") {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	})
	t.Run("unreachable broker", func(t *testing.T) {
		down := map[string]string{config.Prefix + "KAFKA_BROKERS": closedAddr(t)}
		code, _, stderr := tail(down, "-connect-timeout", "2s", topic)
		if code != exitFailed || !strings.Contains(stderr, "no broker answered") {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	})
}
