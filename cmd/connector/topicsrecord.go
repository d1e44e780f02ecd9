package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/control"
	"github.com/paysession/paysession/connector/lookup"
	"github.com/paysession/paysession/connector/topics"
)

// appliedSettings is the value of the control topic's record
// control.TopicsPlanKey: the settings `connector topics apply` applied,
// which a later verify or apply starts from.
type appliedSettings struct {
	Partitions        int32     `json:"partitions"`
	SessionPartitions int32     `json:"session_partitions"`
	ReplicationFactor int16     `json:"replication"`
	MinInsyncReplicas int       `json:"min_insync_replicas"`
	MaxMessageBytes   int       `json:"max_message_bytes"`
	RedriveRetention  string    `json:"redrive_retention"`
	By                string    `json:"by"`
	At                time.Time `json:"at"`
}

// settings returns the recorded settings.
func (a appliedSettings) settings() (topics.Settings, error) {
	retention, err := time.ParseDuration(a.RedriveRetention)
	if err != nil {
		return topics.Settings{}, fmt.Errorf("redrive_retention: %w", err)
	}
	return topics.Settings{Partitions: a.Partitions, SessionPartitions: a.SessionPartitions, ReplicationFactor: a.ReplicationFactor,
		MinInsyncReplicas: a.MinInsyncReplicas, MaxMessageBytes: a.MaxMessageBytes, RedriveRetention: retention}, nil
}

// recordedSettings returns the settings the last apply recorded on the
// control topic, else the defaults, and a line saying which. rep is a
// Verify of the configured topics: a control topic it did not find holds
// no record. cl must read as lookup.Read wants.
func recordedSettings(ctx context.Context, cl *kgo.Client, rep topics.Report, controlTopic string) (topics.Settings, string, error) {
	var last *kgo.Record
	if t, ok := rep.Topic(controlTopic); ok && t.Exists {
		err := lookup.Read(ctx, cl, lookup.Range{Topics: []string{controlTopic}}, func(r *kgo.Record) bool {
			if string(r.Key) == control.TopicsPlanKey {
				last = r
			}
			return true
		})
		if err != nil {
			return topics.Settings{}, "", fmt.Errorf("read the recorded settings on %s: %w", controlTopic, err)
		}
	}
	if last == nil || len(last.Value) == 0 {
		return topics.DefaultSettings(), "settings: the defaults and the flags given (no apply recorded any on " + controlTopic + ")", nil
	}
	bad := func(err error) (topics.Settings, string, error) {
		return topics.Settings{}, "", fmt.Errorf("the recorded settings on %s, offset %d: %w", controlTopic, last.Offset, err)
	}
	var a appliedSettings
	if err := json.Unmarshal(last.Value, &a); err != nil {
		return bad(err)
	}
	s, err := a.settings()
	if err != nil {
		return bad(err)
	}
	return s, fmt.Sprintf("settings: as applied by %s at %s (%s), and the flags given", a.By, a.At.Format(time.RFC3339), describeSettings(s)), nil
}

// recordSettings writes s as the control topic's record
// control.TopicsPlanKey.
func recordSettings(ctx context.Context, cl *kafkaConn, controlTopic string, s topics.Settings) error {
	value, err := json.Marshal(appliedSettings{Partitions: s.Partitions, SessionPartitions: s.SessionPartitions,
		ReplicationFactor: s.ReplicationFactor, MinInsyncReplicas: s.MinInsyncReplicas, MaxMessageBytes: s.MaxMessageBytes,
		RedriveRetention: s.RedriveRetention.String(), By: defaultBy(), At: time.Now().UTC()})
	if err != nil {
		return err
	}
	rec := &kgo.Record{Topic: controlTopic, Key: []byte(control.TopicsPlanKey), Value: value}
	return cl.ProduceSync(ctx, rec).FirstErr()
}

// describeSettings writes s as the flags that give it.
func describeSettings(s topics.Settings) string {
	return fmt.Sprintf("-partitions %d -session-partitions %d -replication %d -min-insync-replicas %d -max-message-bytes %d -redrive-retention %s",
		s.Partitions, s.SessionPartitions, s.ReplicationFactor, s.MinInsyncReplicas, s.MaxMessageBytes, s.RedriveRetention)
}
