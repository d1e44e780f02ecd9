package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/config"
)

// TestMain stops the registry harness.SchemaRegistry and the broker
// harness.Kafka may have started for this binary.
func TestMain(m *testing.M) {
	code := m.Run()
	harness.StopRegistry()
	harness.Shutdown()
	os.Exit(code)
}

// freshTopicEnv returns the variables of a configuration whose every topic
// (PAYSESSION_TOPIC_*) has a name no other test uses, not created, and the
// brokers; it deletes whatever topics of those names exist when t ends.
func freshTopicEnv(t *testing.T, adm *kadm.Client) (env map[string]string, names map[string]string) {
	t.Helper()
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	env = map[string]string{config.Prefix + "KAFKA_BROKERS": strings.Join(harness.Kafka(t), ",")}
	names = map[string]string{}
	var all []string
	for _, v := range config.Variables() {
		if strings.HasPrefix(v.Name, config.Prefix+"TOPIC_") {
			name := "test.topics-cmd." + hex.EncodeToString(suffix[:]) + "." + v.Default
			env[v.Name], names[strings.TrimPrefix(v.Name, config.Prefix+"TOPIC_")] = name, name
			all = append(all, name)
		}
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := adm.DeleteTopics(ctx, all...); err != nil {
			t.Logf("delete topics: %v", err)
		}
	})
	return env, names
}

// runTopicsCmd runs `connector topics args...` under env.
func runTopicsCmd(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	code := run(ctx, append([]string{"topics"}, args...), func(k string) string { return env[k] }, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestTopicsApplyVerify runs `connector topics apply` against the real
// broker on topics that do not exist, then `verify` (clean), then verify
// after one topic is altered (fails naming it and that setting only), then
// after the webhook-events topic gains a partition (named once, as the
// start-up check names it).
func TestTopicsApplyVerify(t *testing.T) {
	cl := harness.NewClient(t, kgo.MetadataMinAge(10*time.Millisecond))
	adm := kadm.NewClient(cl)
	env, names := freshTopicEnv(t, adm)
	// Periodic publishers are off: their two topics are not planned.
	delete(env, config.Prefix+"TOPIC_WALLET_BALANCES")
	delete(env, config.Prefix+"TOPIC_FPS_BANKS")
	flags := []string{"-partitions", "2", "-session-partitions", "3", "-replication", "1", "-min-insync-replicas", "1"}

	code, out, errOut := runTopicsCmd(t, env, append([]string{"apply"}, flags...)...)
	if code != exitOK {
		t.Fatalf("apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for key, name := range names {
		if key == "WALLET_BALANCES" || key == "FPS_BANKS" {
			if strings.Contains(out, name) {
				t.Errorf("apply created %s, a topic of a publisher that is off", name)
			}
			continue
		}
		if !strings.Contains(out, "created "+name+" ") {
			t.Errorf("apply did not create %s:\n%s", name, out)
		}
	}
	td, err := adm.ListTopics(context.Background(), names["SESSIONS"], names["COMMAND_RESULTS"])
	if err != nil {
		t.Fatal(err)
	}
	if got := len(td[names["SESSIONS"]].Partitions); got != 3 {
		t.Errorf("sessions topic has %d partitions, want the -session-partitions 3", got)
	}
	if got := len(td[names["COMMAND_RESULTS"]].Partitions); got != 2 {
		t.Errorf("results topic has %d partitions, want the -partitions 2", got)
	}

	t.Run("verify after apply is clean", func(t *testing.T) {
		code, out, errOut := runTopicsCmd(t, env, append([]string{"verify"}, flags...)...)
		if code != exitOK || !strings.Contains(out, "21 topics as planned") {
			t.Fatalf("verify: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		if code, out, errOut := runTopicsCmd(t, env, append([]string{"apply"}, flags...)...); code != exitOK || strings.Contains(out, "created") {
			t.Fatalf("second apply: exit %d, want 0 creating nothing\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	})

	t.Run("verify names the altered topic", func(t *testing.T) {
		dead := names["DEAD_LETTER"]
		alterConfig(t, adm, dead, "retention.ms", "3600000")
		code, out, _ := runTopicsCmd(t, env, append([]string{"verify"}, flags...)...)
		want := []string{dead + ": retention.ms is 3600000, the plan wants 1209600000"}
		if got := lines(out); code != exitFailed || !slices.Equal(got, want) {
			t.Fatalf("verify: exit %d, stdout\n%s\nwant exit %d and\n%s", code, out, exitFailed, strings.Join(want, "\n"))
		}
	})

	t.Run("a partition count differing within the session trio is named once", func(t *testing.T) {
		events := names["WEBHOOK_EVENTS"]
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := adm.CreatePartitions(ctx, 1, events); err != nil {
			t.Fatal(err)
		}
		harness.Eventually(t, 60*time.Second, events+" has 4 partitions", func() bool {
			td, err := adm.ListTopics(ctx, events)
			return err == nil && len(td[events].Partitions) == 4
		})
		code, out, _ := runTopicsCmd(t, env, append([]string{"verify"}, flags...)...)
		got := lines(out)
		if code != exitFailed || len(got) != 2 || !strings.HasPrefix(got[0], events+": has 4 partitions, must have the 3 of "+names["SESSION_UPDATES"]) ||
			!strings.HasPrefix(got[1], names["DEAD_LETTER"]+": retention.ms") {
			t.Fatalf("verify: exit %d, stdout\n%s\nwant exit %d, the webhook-events topic's partitions once, then the dead-letter topic's retention", code, out, exitFailed)
		}
	})
}

// alterConfig sets one configuration of topic and waits until the broker
// describes it.
func alterConfig(t *testing.T, adm *kadm.Client, topic, key, value string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	resp, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: key, Value: &value}}, topic)
	if err == nil {
		_, err = resp.On(topic, nil)
	}
	if err != nil {
		t.Fatalf("alter %s of %s: %v", key, topic, err)
	}
	harness.Eventually(t, 60*time.Second, topic+" "+key+"="+value, func() bool {
		rcs, err := adm.DescribeTopicConfigs(ctx, topic)
		if err != nil {
			return false
		}
		rc, err := rcs.On(topic, nil)
		if err != nil {
			return false
		}
		for _, c := range rc.Configs {
			if c.Key == key {
				return c.MaybeValue() == value
			}
		}
		return false
	})
}

// lines returns the non-empty lines of s.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestTopicsPlan prints the plan of the default configuration without a
// cluster: every topic once, the compacted ones, the redrive retention, the
// sizes, and the session trio's one partition count.
func TestTopicsPlan(t *testing.T) {
	code, out, errOut := runTopicsCmd(t, map[string]string{}, "plan", "-partitions", "6", "-session-partitions", "8")
	if code != exitOK {
		t.Fatalf("plan: exit %d\n%s", code, errOut)
	}
	rows := map[string][]string{}
	for _, l := range lines(out)[1:] {
		if f := strings.Fields(l); len(f) == 8 {
			rows[f[0]] = f[1:]
		}
	}
	if len(rows) != 21 {
		t.Errorf("plan has %d topics, want 21:\n%s", len(rows), out)
	}
	tests := []struct {
		topic string
		want  []string // role partitions replication min.insync cleanup retention max.message.bytes
	}{
		{"payments.commands.capture", []string{"command", "6", "3", "2", "delete", "-", "1048588"}},
		{"payments.commands.retry", []string{"retry", "6", "3", "2", "delete", "1209600000", "1114124"}},
		{"payments.commands.attempts", []string{"attempts", "6", "3", "2", "compact", "-", "1048588"}},
		{"payments.sessions.updates", []string{"session-updates", "8", "3", "2", "delete", "-", "1048588"}},
		{"payments.sessions", []string{"sessions", "8", "3", "2", "compact", "-", "1048588"}},
		{"payments.webhook-events", []string{"webhook-events", "8", "3", "2", "delete", "-", "1048588"}},
		{"payments.dead-letter", []string{"dead-letter", "6", "3", "2", "delete", "1209600000", "1114124"}},
		{"payments.control", []string{"control", "6", "3", "2", "compact", "-", "1048588"}},
	}
	for _, tt := range tests {
		if got := rows[tt.topic]; !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.topic, got, tt.want)
		}
	}
	if !strings.Contains(out, "same partition count (8): payments.sessions.updates, payments.sessions, payments.webhook-events") {
		t.Errorf("plan does not name the session trio's partition count:\n%s", out)
	}
}

// TestTopicsUsage: a bad verb or setting is a usage error naming it, a
// setting by its flag (before, by its Go field: MinInsyncReplicas).
func TestTopicsUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no verb", nil, "want <plan|apply|verify>, got none"},
		{"unknown verb", []string{"create"}, `unknown command "create"`},
		{"min.insync above replication", []string{"plan", "-replication", "2", "-min-insync-replicas", "3"}, "-min-insync-replicas: 3"},
		{"short redrive retention", []string{"plan", "-redrive-retention", "1h"}, "-redrive-retention: 1h0m0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runTopicsCmd(t, map[string]string{}, tt.args...)
			if code != exitUsage || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, stderr\n%s\nwant exit %d naming %q", code, errOut, exitUsage, tt.want)
			}
		})
	}
}
