package topics

import "github.com/paysession/paysession/internal/outbound"

// DefaultMaxMessageBytes is the size bound Report.MaxMessageBytes assumes for
// a topic whose configuration could not be read (outbound.DefaultMaxMessageBytes).
const DefaultMaxMessageBytes = outbound.DefaultMaxMessageBytes

// TopicReport is what Verify learned about one topic. The setting fields are
// the effective values: the topic's override, else the broker's or the
// cluster's default (DescribeConfigs resolves them); they are zero when
// ConfigsKnown is false.
type TopicReport struct {
	// Topic is the topic's name.
	Topic string
	// Roles are the roles of every Want naming this topic, in order.
	Roles []Role
	// Compacted, Write and Read are the Wants' requirements, or-ed.
	Compacted, Write, Read bool
	// PartitionsLike is the topic whose partition count this one must
	// have (Want.PartitionsLike), empty when none.
	PartitionsLike string

	// Exists is true when the broker described the topic.
	Exists bool
	// Err is why the topic could not be described when Exists is false:
	// kerr.UnknownTopicOrPartition when it does not exist,
	// kerr.TopicAuthorizationFailed when the principal may not see it.
	Err error
	// Partitions is the number of partitions.
	Partitions int
	// Leaderless is the number of partitions without a leader right now.
	Leaderless int
	// ReplicationFactor is the smallest replica count of any partition.
	ReplicationFactor int

	// ConfigsKnown is true when the topic's configuration was read.
	ConfigsKnown bool
	// ConfigsErr is why it was not (typically the principal lacks
	// DESCRIBE_CONFIGS, which READ and WRITE do not imply).
	ConfigsErr error
	// CleanupPolicy is cleanup.policy ("delete", "compact" or
	// "compact,delete").
	CleanupPolicy string
	// MaxMessageBytes is max.message.bytes: the largest record batch the
	// topic accepts.
	MaxMessageBytes int
	// MaxMessageBytesOverridden is true when max.message.bytes is set on
	// the topic itself rather than inherited.
	MaxMessageBytesOverridden bool
	// MinInsyncReplicas is min.insync.replicas.
	MinInsyncReplicas int
	// RetentionMs is retention.ms; -1 keeps records forever.
	RetentionMs int64
	// UncleanLeaderElection is unclean.leader.election.enable.
	UncleanLeaderElection bool
}

// hasRole reports whether one of the topic's Wants has role r.
func (t TopicReport) hasRole(r Role) bool {
	for _, have := range t.Roles {
		if have == r {
			return true
		}
	}
	return false
}

// Report is the result of Verify: one TopicReport per distinct topic, in the
// order the Wants first named them. Err and Warnings apply the rules of the
// package documentation to it.
type Report struct {
	// Brokers is the number of brokers in the cluster's metadata.
	Brokers int
	// Topics describes each topic.
	Topics []TopicReport
}

// Topic returns the report of the named topic, and false when Verify was not
// asked about it.
func (r Report) Topic(name string) (TopicReport, bool) {
	for _, t := range r.Topics {
		if t.Topic == name {
			return t, true
		}
	}
	return TopicReport{}, false
}

// MaxMessageBytes returns the largest record batch the topic accepts, its
// effective max.message.bytes; DefaultMaxMessageBytes when the topic or its
// configuration is unknown. A single record must fit in it with its batch
// overhead: see Fits.
func (r Report) MaxMessageBytes(topic string) int {
	t, ok := r.Topic(topic)
	if !ok || !t.ConfigsKnown || t.MaxMessageBytes <= 0 {
		return DefaultMaxMessageBytes
	}
	return t.MaxMessageBytes
}

// BatchMaxBytes returns MaxMessageBytes as the per-topic batch cap of a
// franz-go producer: pass it as kgo.ProducerBatchMaxBytesFn(report.BatchMaxBytes)
// so the client accepts the records each topic accepts (its own default of
// 1,000,012 bytes would refuse a 2 MB record to a 4 MiB topic, and allow one
// the topic refuses). The value is clamped to the range franz-go allows.
func (r Report) BatchMaxBytes(topic string) int32 { return outbound.BatchCaps(r)(topic) }
