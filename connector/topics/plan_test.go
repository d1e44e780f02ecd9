package topics

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestNewPlan: each topic's settings follow from its Want and the Settings.
func TestNewPlan(t *testing.T) {
	s := Settings{Partitions: 4, SessionPartitions: 6, ReplicationFactor: 3, MinInsyncReplicas: 2,
		MaxMessageBytes: 1 << 20, RedriveRetention: 10 * 24 * time.Hour, RecordBytes: map[Role]int{WebhookEvents: 4 << 20}}
	plan, err := NewPlan([]Want{
		{Topic: "cmd", Role: Command, Read: true},
		{Topic: "retry", Role: Retry, Read: true, Write: true},
		{Topic: "updates", Role: SessionUpdates, Read: true, Write: true},
		{Topic: "sessions", Role: Sessions, Compacted: true, Write: true, PartitionsLike: "updates"},
		{Topic: "events", Role: WebhookEvents, Write: true, PartitionsLike: "updates"},
		{Topic: "dead", Role: DeadLetter, Write: true},
		{Topic: "cmd", Role: Command, Write: true},
	}, s)
	if err != nil {
		t.Fatal(err)
	}
	const mib, keep = "1048576", "864000000"
	copyBytes := "1114112" // 1 MiB + CopyHeadroom
	tests := []struct {
		topic      string
		partitions int32
		configs    map[string]string
	}{
		{"cmd", 4, map[string]string{CleanupPolicy: "delete", MinInsyncReplicas: "2", MaxMessageBytes: mib}},
		{"retry", 4, map[string]string{CleanupPolicy: "delete", MinInsyncReplicas: "2", MaxMessageBytes: copyBytes, RetentionMs: keep}},
		{"updates", 6, map[string]string{CleanupPolicy: "delete", MinInsyncReplicas: "2", MaxMessageBytes: mib}},
		{"sessions", 6, map[string]string{CleanupPolicy: "compact", MinInsyncReplicas: "2", MaxMessageBytes: mib}},
		{"events", 6, map[string]string{CleanupPolicy: "delete", MinInsyncReplicas: "2", MaxMessageBytes: "4259840"}},
		{"dead", 4, map[string]string{CleanupPolicy: "delete", MinInsyncReplicas: "2", MaxMessageBytes: copyBytes, RetentionMs: keep}},
	}
	if len(plan) != len(tests) {
		t.Fatalf("plan has %d topics, want %d (one per distinct topic)", len(plan), len(tests))
	}
	for i, tt := range tests {
		t.Run(tt.topic, func(t *testing.T) {
			got := plan[i]
			if got.Topic != tt.topic || got.Partitions != tt.partitions || got.ReplicationFactor != 3 || !maps.Equal(got.Configs, tt.configs) {
				t.Errorf("got %+v, want %d partitions, replication 3, configs %v", got, tt.partitions, tt.configs)
			}
		})
	}
}

// TestSettingsValidate names every bad field at once.
func TestSettingsValidate(t *testing.T) {
	err := Settings{ReplicationFactor: 2, MinInsyncReplicas: 3, MaxMessageBytes: 10, RedriveRetention: time.Hour, SessionPartitions: -1}.Validate()
	for _, field := range []string{"Partitions:", "SessionPartitions:", "MinInsyncReplicas: 3", "MaxMessageBytes: 10", "RedriveRetention: 1h0m0s"} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("Validate() = %v, want it to name %s", err, field)
		}
	}
	if err := DefaultSettings().Validate(); err != nil {
		t.Errorf("DefaultSettings().Validate() = %v", err)
	}
}

// TestDifferences compares described topics with a plan and leaves out what
// Report.Err names.
func TestDifferences(t *testing.T) {
	s := DefaultSettings()
	plan, err := NewPlan([]Want{
		{Topic: "updates", Role: SessionUpdates, Write: true},
		{Topic: "sessions", Role: Sessions, Compacted: true, Write: true, PartitionsLike: "updates"},
		{Topic: "dead", Role: DeadLetter, Write: true},
		{Topic: "missing", Role: Results, Write: true},
	}, s)
	if err != nil {
		t.Fatal(err)
	}
	rep := Report{Brokers: 3, Topics: []TopicReport{
		{Topic: "updates", Roles: []Role{SessionUpdates}, Write: true, Exists: true, Partitions: 12, ReplicationFactor: 3,
			ConfigsKnown: true, CleanupPolicy: "delete", MinInsyncReplicas: 2, MaxMessageBytes: KafkaMaxMessageBytes, RetentionMs: 1},
		{Topic: "sessions", Roles: []Role{Sessions}, Compacted: true, Write: true, PartitionsLike: "updates", Exists: true, Partitions: 6,
			ReplicationFactor: 3, ConfigsKnown: true, CleanupPolicy: "delete", MinInsyncReplicas: 1, MaxMessageBytes: KafkaMaxMessageBytes},
		{Topic: "dead", Roles: []Role{DeadLetter}, Write: true, Exists: true, Partitions: 12, ReplicationFactor: 2, ConfigsErr: errString("denied")},
		{Topic: "missing", Roles: []Role{Results}, Write: true, Err: errString("UNKNOWN_TOPIC_OR_PARTITION")},
	}}
	var got []string
	for _, d := range plan.Differences(rep) {
		got = append(got, d.String())
	}
	want := []string{
		// sessions: cleanup.policy and partitions are Report.Err's.
		"sessions: min.insync.replicas is 1, the plan wants 2",
		"dead: replication factor is 2, the plan wants 3",
		"dead: cleanup.policy is unknown (denied), the plan wants delete",
		"dead: min.insync.replicas is unknown (denied), the plan wants 2",
		"dead: max.message.bytes is unknown (denied), the plan wants 1114124",
		"dead: retention.ms is unknown (denied), the plan wants 1209600000",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Differences:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

type errString string

func (e errString) Error() string { return string(e) }
