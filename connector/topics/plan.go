package topics

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Topic configuration keys the plan sets.
const (
	CleanupPolicy     = "cleanup.policy"
	MinInsyncReplicas = "min.insync.replicas"
	MaxMessageBytes   = "max.message.bytes"
	RetentionMs       = "retention.ms"
)

// KafkaMaxMessageBytes is Kafka's default max.message.bytes (1 MiB plus the
// record batch overhead), the plan's default size bound of a command topic.
const KafkaMaxMessageBytes = 1048588

// CopyHeadroom is what the plan adds to the command topics' max.message.bytes
// on the topics whose records are copies of command records (retry, dead
// letter) or wrap a record the connector received (a webhook body): room for
// the envelope (a dead letter's original topic, offset, headers, error) and
// the headers added, so a command the command topic accepted is copied whole.
const CopyHeadroom = 64 << 10

// Settings are an operator's choices for the topics the plan creates; the
// rest of each topic's configuration follows from the connector's Wants.
type Settings struct {
	// Partitions is the partition count of every topic but the ones
	// partitioned alike (Want.PartitionsLike).
	Partitions int32
	// SessionPartitions is the one partition count of the topics
	// partitioned alike (sessions, session updates, webhook events);
	// 0 means Partitions.
	SessionPartitions int32
	// ReplicationFactor is every topic's replica count.
	ReplicationFactor int16
	// MinInsyncReplicas is every topic's min.insync.replicas; at most
	// ReplicationFactor.
	MinInsyncReplicas int
	// MaxMessageBytes is the max.message.bytes of the command topics and
	// of every topic not raised by CopyHeadroom or RecordBytes.
	MaxMessageBytes int
	// RedriveRetention is the retention of the retry and dead-letter
	// topics, whose records wait for an operator; at least
	// MinRedriveRetention.
	RedriveRetention time.Duration
	// RecordBytes is, per role, the largest record body the connector's
	// configuration lets it write to topics of that role (a webhook body
	// bound): their max.message.bytes is at least it plus CopyHeadroom.
	RecordBytes map[Role]int
}

// DefaultSettings are the plan's defaults: 12 partitions, 3 replicas,
// min.insync.replicas 2, Kafka's default message size and 14 days of
// retention for records waiting on an operator.
func DefaultSettings() Settings {
	return Settings{Partitions: 12, ReplicationFactor: 3, MinInsyncReplicas: 2,
		MaxMessageBytes: KafkaMaxMessageBytes, RedriveRetention: 2 * MinRedriveRetention}
}

// SettingError is a setting that cannot make a working topic. Field names
// the Settings field, so that a caller can name its own spelling of the
// setting (a flag, a variable).
type SettingError struct {
	// Field is the Settings field: "MinInsyncReplicas".
	Field string
	// Problem is what is wrong with its value: "3, must be between ...".
	Problem string
}

func (e *SettingError) Error() string { return e.Field + ": " + e.Problem }

// Validate returns every setting that cannot make a working topic, each a
// *SettingError naming its field.
func (s Settings) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &SettingError{Field: field, Problem: fmt.Sprintf(format, args...)})
	}
	if s.Partitions < 1 {
		bad("Partitions", "%d, must be at least 1", s.Partitions)
	}
	if s.SessionPartitions < 0 {
		bad("SessionPartitions", "%d, must be at least 1 (0 = Partitions)", s.SessionPartitions)
	}
	if s.ReplicationFactor < 1 {
		bad("ReplicationFactor", "%d, must be at least 1", s.ReplicationFactor)
	}
	if s.MinInsyncReplicas < 1 || s.MinInsyncReplicas > int(s.ReplicationFactor) {
		bad("MinInsyncReplicas", "%d, must be between 1 and the replication factor %d (above it every write fails)",
			s.MinInsyncReplicas, s.ReplicationFactor)
	}
	if s.MaxMessageBytes < CopyHeadroom {
		bad("MaxMessageBytes", "%d, must be at least %d", s.MaxMessageBytes, CopyHeadroom)
	}
	if s.RedriveRetention < MinRedriveRetention {
		bad("RedriveRetention", "%v, must be at least %v", s.RedriveRetention, MinRedriveRetention)
	}
	return errors.Join(errs...)
}

// Spec is one topic as the plan has it: what Apply creates and what a
// verification compares the cluster's topic with.
type Spec struct {
	// Topic is the topic's name.
	Topic string
	// Roles are the roles of every Want naming the topic.
	Roles []Role
	// Partitions is the partition count.
	Partitions int32
	// ReplicationFactor is the replica count.
	ReplicationFactor int16
	// Configs are the topic configurations set at creation: the keys
	// above, each always present but RetentionMs (only on the topics
	// holding records for an operator).
	Configs map[string]string
	// PartitionsLike is the topic whose partition count this one must
	// have, empty when none.
	PartitionsLike string
}

// Plan is every topic of the connector's configuration, in the order of its
// Wants, with the settings each needs.
type Plan []Spec

// NewPlan returns the plan of wants under s: cleanup.policy compact for the
// topics wanted compacted (delete for the others), the redrive retention on
// the retry and dead-letter topics, min.insync.replicas on all, and
// max.message.bytes that lets every topic take what the connector writes to
// it. The topics partitioned alike, and the topics they are partitioned
// like, all get SessionPartitions.
func NewPlan(wants []Want, s Settings) (Plan, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.SessionPartitions == 0 {
		s.SessionPartitions = s.Partitions
	}
	alike := map[string]bool{}
	for _, w := range wants {
		if w.PartitionsLike != "" {
			alike[w.Topic], alike[w.PartitionsLike] = true, true
		}
	}
	var plan Plan
	for _, t := range merge(wants) {
		spec := Spec{Topic: t.Topic, Roles: t.Roles, Partitions: s.Partitions, ReplicationFactor: s.ReplicationFactor,
			PartitionsLike: t.PartitionsLike, Configs: map[string]string{
				CleanupPolicy:     "delete",
				MinInsyncReplicas: strconv.Itoa(s.MinInsyncReplicas),
				MaxMessageBytes:   strconv.Itoa(s.maxMessageBytes(t)),
			}}
		if alike[t.Topic] {
			spec.Partitions = s.SessionPartitions
		}
		if t.Compacted {
			spec.Configs[CleanupPolicy] = "compact"
		}
		for _, r := range t.Roles {
			if r.keepsForRedrive() {
				spec.Configs[RetentionMs] = strconv.FormatInt(s.RedriveRetention.Milliseconds(), 10)
			}
		}
		plan = append(plan, spec)
	}
	return plan, nil
}

// maxMessageBytes is the max.message.bytes of topic t: MaxMessageBytes,
// plus CopyHeadroom when its records copy command records, and at least
// RecordBytes of its roles plus CopyHeadroom.
func (s Settings) maxMessageBytes(t TopicReport) int {
	n := s.MaxMessageBytes
	for _, r := range t.Roles {
		if r.carriesCommands() {
			n = max(n, s.MaxMessageBytes+CopyHeadroom)
		}
		if b, ok := s.RecordBytes[r]; ok {
			n = max(n, b+CopyHeadroom)
		}
	}
	return n
}

// Topic returns the spec of the named topic, and false when the plan has
// none.
func (p Plan) Topic(name string) (Spec, bool) {
	for _, s := range p {
		if s.Topic == name {
			return s, true
		}
	}
	return Spec{}, false
}
