package topics

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

// healthy returns the report of a topic that breaks no rule on a 3-broker
// cluster.
func healthy(name string, role Role) TopicReport {
	return TopicReport{
		Topic: name, Roles: []Role{role}, Write: true, Read: true,
		Exists: true, Partitions: 3, ReplicationFactor: 3,
		ConfigsKnown: true, CleanupPolicy: "delete", MaxMessageBytes: 1048588,
		MinInsyncReplicas: 2, RetentionMs: -1,
	}
}

// with returns t changed by edit.
func with(t TopicReport, edit func(*TopicReport)) TopicReport {
	edit(&t)
	return t
}

func TestReportErr(t *testing.T) {
	for _, tc := range []struct {
		name   string
		topics []TopicReport
		want   []string // the joined error's lines; none for nil
	}{
		{"all healthy", []TopicReport{healthy("a", Command), with(healthy("s", Sessions), func(t *TopicReport) { t.Compacted, t.CleanupPolicy = true, "compact" })}, nil},
		{"every missing topic named", []TopicReport{
			{Topic: "m1", Roles: []Role{Command}, Err: kerr.UnknownTopicOrPartition},
			healthy("ok", Results),
			{Topic: "m2", Roles: []Role{Retry, DeadLetter}, Err: kerr.UnknownTopicOrPartition},
		}, []string{"m1: topic does not exist (command topic)", "m2: topic does not exist (retry and dead-letter topic)"}},
		{"hidden topic", []TopicReport{{Topic: "h", Roles: []Role{Results}, Err: kerr.TopicAuthorizationFailed}},
			[]string{"h: not authorized to describe the topic (results topic): the principal needs READ or WRITE on it"}},
		{"other describe error", []TopicReport{{Topic: "x", Roles: []Role{Results}, Err: kerr.LeaderNotAvailable}},
			[]string{"x: cannot describe the topic (results topic): LEADER_NOT_AVAILABLE: There is no leader for this topic-partition as we are in the middle of a leadership election."}},
		{"sessions not compacted", []TopicReport{with(healthy("payments.sessions", Sessions), func(t *TopicReport) { t.Compacted = true })},
			[]string{`payments.sessions: cleanup.policy is "delete", must include compact`}},
		{"compact,delete includes compact", []TopicReport{with(healthy("s", Sessions), func(t *TopicReport) { t.Compacted, t.CleanupPolicy = true, "compact,delete" })}, nil},
		{"compaction unknown is not fatal", []TopicReport{with(healthy("s", Sessions), func(t *TopicReport) { t.Compacted, t.ConfigsKnown, t.CleanupPolicy = true, false, "" })}, nil},
		{"min.insync above replicas", []TopicReport{with(healthy("r", Results), func(t *TopicReport) { t.ReplicationFactor, t.MinInsyncReplicas = 1, 2 })},
			[]string{"r: min.insync.replicas 2 exceeds the replication factor 1: every write fails with NOT_ENOUGH_REPLICAS"}},
		{"partitions unlike the topic it derives from", []TopicReport{
			healthy("u", SessionUpdates),
			with(healthy("s", Sessions), func(t *TopicReport) { t.PartitionsLike, t.Partitions = "u", 6 }),
			with(healthy("w", WebhookEvents), func(t *TopicReport) { t.PartitionsLike = "u" }),
		}, []string{"s: has 6 partitions, must have the 3 of u: the session writer derives partition p of one from partition p of the other"}},
		{"partitions like a missing topic: only the missing one named", []TopicReport{
			{Topic: "u", Roles: []Role{SessionUpdates}, Err: kerr.UnknownTopicOrPartition},
			with(healthy("s", Sessions), func(t *TopicReport) { t.PartitionsLike = "u" }),
		}, []string{"u: topic does not exist (session-updates topic)"}},
		{"results topic too small for a result", []TopicReport{
			with(healthy("r", Results), func(t *TopicReport) { t.MaxMessageBytes = MinResultsMessageBytes - 1 }),
			with(healthy("u", SessionUpdates), func(t *TopicReport) { t.MaxMessageBytes = 1024 }),
			with(healthy("r2", Results), func(t *TopicReport) { t.ConfigsKnown, t.MaxMessageBytes = false, 0 }),
		}, []string{"r: max.message.bytes 65535 is below 65536: every command must end as one result, and a result, its description withheld if need be, must fit"}},
		{"min.insync above replicas, read only", []TopicReport{with(healthy("c", Command), func(t *TopicReport) { t.Write, t.ReplicationFactor, t.MinInsyncReplicas = false, 1, 2 })}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Report{Brokers: 3, Topics: tc.topics}.Err()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Err() = nil, want %q", tc.want)
			}
			if got := strings.Split(err.Error(), "\n"); !slices.Equal(got, tc.want) {
				t.Errorf("Err() =\n%s\nwant\n%s", err, strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestReportErrIsAndAs(t *testing.T) {
	err := Report{Topics: []TopicReport{
		healthy("ok", Results),
		{Topic: "gone", Roles: []Role{Results}, Err: kerr.UnknownTopicOrPartition},
	}}.Err()
	if !errors.Is(err, kerr.UnknownTopicOrPartition) {
		t.Errorf("errors.Is(%v, UnknownTopicOrPartition) = false", err)
	}
	var v *Violation
	if !errors.As(err, &v) || v.Topic != "gone" || v.Setting != "" {
		t.Errorf("errors.As: %+v, want the violation of topic gone", v)
	}
}

func TestReportWarnings(t *testing.T) {
	const week = 7 * 24 * 3600 * 1000
	for _, tc := range []struct {
		name    string
		brokers int
		topics  []TopicReport
		want    []string
	}{
		{"healthy", 3, []TopicReport{healthy("a", Command), healthy("r", Retry)}, nil},
		{"missing topics are errors, not warnings", 3, []TopicReport{{Topic: "m", Roles: []Role{Command}, Err: kerr.UnknownTopicOrPartition}}, nil},
		{"replication factor 1", 1, []TopicReport{with(healthy("a", Results), func(t *TopicReport) { t.ReplicationFactor, t.MinInsyncReplicas = 1, 1 })},
			[]string{"a: replication factor 1 on a 1-broker cluster: losing that broker's disk loses the topic's records"}},
		{"min.insync 1 on a written topic", 3, []TopicReport{with(healthy("a", Results), func(t *TopicReport) { t.MinInsyncReplicas = 1 })},
			[]string{"a: min.insync.replicas 1 with replication factor 3: once replicas fall behind, the leader alone acknowledges a write"}},
		{"min.insync 1 on a read topic", 3, []TopicReport{with(healthy("c", Command), func(t *TopicReport) { t.Write, t.MinInsyncReplicas = false, 1 })}, nil},
		{"unclean election", 3, []TopicReport{with(healthy("a", Results), func(t *TopicReport) { t.UncleanLeaderElection = true })},
			[]string{"a: unclean.leader.election.enable=true: a failover to a lagging replica drops acknowledged records"}},
		{"short retention on dead letter", 3, []TopicReport{with(healthy("d", DeadLetter), func(t *TopicReport) { t.RetentionMs = 86400000 })},
			[]string{"d: retention.ms 86400000 (24h0m0s) is shorter than 168h0m0s: dead-letter records may be deleted before anyone acts on them"}},
		{"a week on retry is enough", 3, []TopicReport{with(healthy("r", Retry), func(t *TopicReport) { t.RetentionMs = week })}, nil},
		{"short retention on results is fine", 3, []TopicReport{with(healthy("r", Results), func(t *TopicReport) { t.RetentionMs = 3600000 })}, nil},
		{"short retention on compacted-only retry", 3, []TopicReport{with(healthy("r", Retry), func(t *TopicReport) { t.RetentionMs, t.CleanupPolicy = 3600000, "compact" })}, nil},
		{"compact,delete with retention", 3, []TopicReport{with(healthy("s", Sessions), func(t *TopicReport) {
			t.Compacted, t.CleanupPolicy, t.RetentionMs = true, "compact,delete", week
		})}, []string{`s: cleanup.policy "compact,delete" with retention.ms 604800000: keys quiet for longer than 168h0m0s are deleted, not kept`}},
		{"uncompacted is an error, not a compact,delete warning", 3, []TopicReport{with(healthy("s", Sessions), func(t *TopicReport) {
			t.Compacted, t.RetentionMs = true, week
		})}, nil},
		{"dead letter smaller than a command topic", 3, []TopicReport{
			with(healthy("c1", Command), func(t *TopicReport) { t.MaxMessageBytes = 2 << 20 }),
			with(healthy("c2", Command), func(t *TopicReport) { t.MaxMessageBytes = 4 << 20 }),
			healthy("payments.dead-letter", DeadLetter),
			healthy("results", Results),
		}, []string{"payments.dead-letter: max.message.bytes 1048588 is below 4194304 of command topic c2: larger command records cannot be copied to this dead-letter topic whole"}},
		{"leaderless partitions", 3, []TopicReport{with(healthy("a", Results), func(t *TopicReport) { t.Leaderless = 2 })},
			[]string{"a: 2 of 3 partitions have no leader"}},
		{"configs unreadable", 3, []TopicReport{with(healthy("a", Results), func(t *TopicReport) {
			t.ConfigsKnown, t.ConfigsErr, t.UncleanLeaderElection = false, kerr.TopicAuthorizationFailed, true
		})}, []string{"a: configuration not readable (TOPIC_AUTHORIZATION_FAILED: Not authorized to access topics: [Topic authorization failed.]): cleanup.policy, max.message.bytes and retention.ms unchecked"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Report{Brokers: tc.brokers, Topics: tc.topics}.Warnings()
			if !slices.Equal(got, tc.want) {
				t.Errorf("Warnings() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestMaxMessageBytes(t *testing.T) {
	rep := Report{Topics: []TopicReport{
		with(healthy("big", Command), func(t *TopicReport) { t.MaxMessageBytes = 4 << 20 }),
		with(healthy("hidden", Results), func(t *TopicReport) { t.ConfigsKnown, t.MaxMessageBytes = false, 0 }),
		with(healthy("tiny", Results), func(t *TopicReport) { t.MaxMessageBytes = 100 }),
	}}
	for _, tc := range []struct {
		topic     string
		want      int
		wantBatch int32
	}{
		{"big", 4 << 20, 4 << 20},
		{"hidden", DefaultMaxMessageBytes, DefaultMaxMessageBytes},
		{"not verified", DefaultMaxMessageBytes, DefaultMaxMessageBytes},
		{"tiny", 100, 512},
	} {
		if got := rep.MaxMessageBytes(tc.topic); got != tc.want {
			t.Errorf("MaxMessageBytes(%q) = %d, want %d", tc.topic, got, tc.want)
		}
		if got := rep.BatchMaxBytes(tc.topic); got != tc.wantBatch {
			t.Errorf("BatchMaxBytes(%q) = %d, want %d", tc.topic, got, tc.wantBatch)
		}
	}
}
