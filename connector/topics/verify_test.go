package topics

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
)

// TestVerify runs Verify on real topics: one compacted as wanted, one not
// compacted where compaction is wanted, a 4 MiB command topic, a 1 MiB dead
// letter topic, a retry topic with an hour's retention, one left at the
// broker's defaults, and one that does not exist.
func TestVerify(t *testing.T) {
	cl, adm := newClients(t)
	str := func(s string) *string { return &s }
	var (
		sessions   = harness.TopicWith(t, cl, 1, map[string]*string{"cleanup.policy": str("compact")})
		notCompact = harness.TopicWith(t, cl, 1, map[string]*string{"cleanup.policy": str("delete")})
		command    = harness.TopicWith(t, cl, 3, map[string]*string{"max.message.bytes": str("4194304")})
		deadLetter = harness.TopicWith(t, cl, 1, map[string]*string{"max.message.bytes": str("1048576")})
		retry      = harness.TopicWith(t, cl, 1, map[string]*string{"retention.ms": str("3600000")})
		results    = harness.TopicWith(t, cl, 1, nil)
		missing    = missingTopic(t, "missing")
	)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := Verify(ctx, adm, []Want{
		{Topic: command, Role: Command, Read: true},
		{Topic: retry, Role: Retry, Read: true, Write: true},
		{Topic: results, Role: Results, Write: true},
		{Topic: sessions, Role: Sessions, Compacted: true, Read: true, Write: true},
		{Topic: notCompact, Role: Sessions, Compacted: true, Write: true},
		{Topic: deadLetter, Role: DeadLetter, Write: true},
		{Topic: missing, Role: WebhookEvents, Write: true},
		{Topic: command, Role: Command, Write: true}, // redrive: merged with the first
	})
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}

	t.Run("Err names the missing and the uncompacted topic, only them", func(t *testing.T) {
		err := rep.Err()
		if err == nil {
			t.Fatal("Err() = nil, want the missing and the uncompacted topic")
		}
		want := []string{
			notCompact + `: cleanup.policy is "delete", must include compact`,
			missing + ": topic does not exist (webhook-events topic)",
		}
		if got := strings.Split(err.Error(), "\n"); !slices.Equal(got, want) {
			t.Errorf("Err() =\n%s\nwant\n%s", err, strings.Join(want, "\n"))
		}
		if !errors.Is(err, kerr.UnknownTopicOrPartition) {
			t.Errorf("errors.Is(Err(), UnknownTopicOrPartition) = false")
		}
	})

	t.Run("topics as described", func(t *testing.T) {
		if rep.Brokers < 1 {
			t.Errorf("Brokers = %d, want at least 1", rep.Brokers)
		}
		if len(rep.Topics) != 7 {
			t.Errorf("%d topics reported, want 7 (the command topic's two wants merged)", len(rep.Topics))
		}
		cmd, _ := rep.Topic(command)
		if !cmd.Exists || cmd.Partitions != 3 || cmd.ReplicationFactor != 1 || !cmd.Read || !cmd.Write ||
			!slices.Equal(cmd.Roles, []Role{Command, Command}) || cmd.CleanupPolicy != "delete" || !cmd.MaxMessageBytesOverridden {
			t.Errorf("command topic: %+v", cmd)
		}
		if s, _ := rep.Topic(sessions); !s.ConfigsKnown || s.CleanupPolicy != "compact" {
			t.Errorf("sessions topic: %+v", s)
		}
		if r, _ := rep.Topic(retry); r.RetentionMs != 3600000 {
			t.Errorf("retry retention.ms = %d, want 3600000", r.RetentionMs)
		}
		if m, _ := rep.Topic(missing); m.Exists || !errors.Is(m.Err, kerr.UnknownTopicOrPartition) {
			t.Errorf("missing topic: %+v", m)
		}
	})

	t.Run("MaxMessageBytes: the override, else the broker's default", func(t *testing.T) {
		brokerDefault := brokerMessageMaxBytes(t, adm)
		for topic, want := range map[string]int{command: 4194304, deadLetter: 1048576, results: brokerDefault, missing: DefaultMaxMessageBytes} {
			if got := rep.MaxMessageBytes(topic); got != want {
				t.Errorf("MaxMessageBytes(%s) = %d, want %d", topic, got, want)
			}
		}
		if r, _ := rep.Topic(results); r.MaxMessageBytesOverridden {
			t.Errorf("results topic: max.message.bytes reported overridden")
		}
	})

	t.Run("warnings", func(t *testing.T) {
		warnings := rep.Warnings()
		for _, topic := range []string{command, retry, results, sessions, notCompact, deadLetter} {
			if !containsLine(warnings, topic+": replication factor 1 on a ") {
				t.Errorf("no replication factor warning for %s in\n%s", topic, strings.Join(warnings, "\n"))
			}
		}
		for _, want := range []string{
			retry + ": retention.ms 3600000 (1h0m0s) is shorter than 168h0m0s: retry records may be deleted before anyone acts on them",
			deadLetter + ": max.message.bytes 1048576 is below 4194304 of command topic " + command + ": larger command records cannot be copied to this dead-letter topic whole",
		} {
			if !slices.Contains(warnings, want) {
				t.Errorf("warnings lack %q:\n%s", want, strings.Join(warnings, "\n"))
			}
		}
		if containsLine(warnings, missing) {
			t.Errorf("a missing topic is an error, not a warning:\n%s", strings.Join(warnings, "\n"))
		}
	})

	t.Run("Verify does not create a missing topic", func(t *testing.T) {
		md, err := adm.Metadata(ctx, missing)
		if err != nil {
			t.Fatal(err)
		}
		if td := md.Topics[missing]; !errors.Is(td.Err, kerr.UnknownTopicOrPartition) {
			t.Errorf("after Verify, %s: %+v, want UNKNOWN_TOPIC_OR_PARTITION", missing, td)
		}
	})
}

// TestVerifyNothing asks about no topic.
func TestVerifyNothing(t *testing.T) {
	_, adm := newClients(t)
	rep, err := Verify(context.Background(), adm, nil)
	if err != nil || rep.Err() != nil || len(rep.Topics) != 0 || len(rep.Warnings()) != 0 {
		t.Errorf("Verify(nil) = %+v, %v", rep, err)
	}
}

// TestVerifyUnreachable returns an error, not a report, when the cluster
// cannot be asked.
func TestVerifyUnreachable(t *testing.T) {
	if testing.Short() {
		t.Skip("dials the network: skipped in -short mode with the broker tests")
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := Verify(ctx, kadm.NewClient(cl), []Want{{Topic: "t", Role: Results}}); err == nil {
		t.Error("Verify against no broker: nil error")
	}
}

// brokerMessageMaxBytes returns the broker's message.max.bytes, the default of
// a topic's max.message.bytes.
func brokerMessageMaxBytes(t *testing.T, adm *kadm.Client) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	brokers, err := adm.ListBrokers(ctx)
	if err != nil || len(brokers) == 0 {
		t.Fatalf("list brokers: %v", err)
	}
	rcs, err := adm.DescribeBrokerConfigs(ctx, brokers[0].NodeID)
	if err != nil || len(rcs) != 1 {
		t.Fatalf("describe broker configs: %v", err)
	}
	for _, c := range rcs[0].Configs {
		if c.Key == "message.max.bytes" {
			n, err := strconv.Atoi(c.MaybeValue())
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("broker has no message.max.bytes")
	return 0
}

// containsLine reports whether a line of lines starts with prefix.
func containsLine(lines []string, prefix string) bool {
	return slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, prefix) })
}
