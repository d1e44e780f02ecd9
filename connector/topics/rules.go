package topics

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// MinRedriveRetention is the shortest retention.ms that does not warn on the
// topics whose records wait for an operator (retry, dead letter).
const MinRedriveRetention = 7 * 24 * time.Hour

// Violation is one reason the connector must not start: a topic it needs is
// missing or hidden, or has a setting that breaks a guarantee.
type Violation struct {
	// Topic is the topic's name.
	Topic string
	// Setting is the topic setting at fault, empty when the topic itself is.
	Setting string
	// Problem says what is wrong, in words.
	Problem string
	// Err is the broker's error, when there is one.
	Err error
}

// Error returns "topic: problem".
func (v *Violation) Error() string { return v.Topic + ": " + v.Problem }

// Unwrap returns the broker's error, so that errors.Is(err,
// kerr.UnknownTopicOrPartition) finds a missing topic.
func (v *Violation) Unwrap() error { return v.Err }

// Err returns nil when every topic passes the hard rules, or one error
// joining a *Violation per problem, each naming its topic: every missing
// topic, every topic that cannot be described, every one that must be
// compacted and is not, every written one whose min.insync.replicas exceeds
// its replication factor, every one whose partition count differs from the
// topic it must be partitioned like, a results topic below
// MinResultsMessageBytes.
func (r Report) Err() error {
	var errs []error
	for _, v := range r.Violations() {
		errs = append(errs, v)
	}
	return errors.Join(errs...)
}

// Violations returns the problems Err joins, one by one, in topic order.
func (r Report) Violations() []*Violation {
	var out []*Violation
	for _, t := range r.Topics {
		out = append(out, t.violations()...)
		if v := r.copartition(t); v != nil {
			out = append(out, v)
		}
	}
	return out
}

// copartition is the violation of a topic whose partition count differs
// from its PartitionsLike topic's (nil when either is missing: that is
// reported on its own).
func (r Report) copartition(t TopicReport) *Violation {
	like, ok := r.Topic(t.PartitionsLike)
	if t.PartitionsLike == "" || !ok || !t.Exists || !like.Exists || t.Partitions == like.Partitions {
		return nil
	}
	return &Violation{Topic: t.Topic, Setting: "partitions",
		Problem: fmt.Sprintf("has %d partitions, must have the %d of %s: the session writer derives partition p of one from partition p of the other",
			t.Partitions, like.Partitions, like.Topic)}
}

// violations applies the hard rules to one topic.
func (t TopicReport) violations() []*Violation {
	if !t.Exists {
		return []*Violation{t.existence()}
	}
	var out []*Violation
	if t.Compacted && t.ConfigsKnown && !hasPolicy(t.CleanupPolicy, "compact") {
		out = append(out, &Violation{Topic: t.Topic, Setting: "cleanup.policy",
			Problem: fmt.Sprintf("cleanup.policy is %q, must include compact", t.CleanupPolicy)})
	}
	if t.Write && t.ConfigsKnown && t.MinInsyncReplicas > t.ReplicationFactor {
		out = append(out, &Violation{Topic: t.Topic, Setting: "min.insync.replicas",
			Problem: fmt.Sprintf("min.insync.replicas %d exceeds the replication factor %d: every write fails with NOT_ENOUGH_REPLICAS",
				t.MinInsyncReplicas, t.ReplicationFactor)})
	}
	if t.hasRole(Results) && t.ConfigsKnown && t.MaxMessageBytes < MinResultsMessageBytes {
		out = append(out, &Violation{Topic: t.Topic, Setting: MaxMessageBytes,
			Problem: fmt.Sprintf("max.message.bytes %d is below %d: every command must end as one result, and a result, its description withheld if need be, must fit",
				t.MaxMessageBytes, MinResultsMessageBytes)})
	}
	return out
}

// MinResultsMessageBytes is the least max.message.bytes the results topic
// may have. A result is a few hundred bytes (its keys, ids and codes are
// bounded at validation) plus its description, which the connector
// withholds when the result would not fit (internal/outbound): below this
// floor even a lean result might not, and a command would end without one.
const MinResultsMessageBytes = 64 << 10

// existence is the violation of a topic that could not be described.
func (t TopicReport) existence() *Violation {
	v := &Violation{Topic: t.Topic, Err: t.Err}
	roles := t.roleNames()
	switch {
	case errors.Is(t.Err, kerr.UnknownTopicOrPartition):
		v.Problem = "topic does not exist (" + roles + ")"
	case errors.Is(t.Err, kerr.TopicAuthorizationFailed):
		v.Problem = "not authorized to describe the topic (" + roles + "): the principal needs READ or WRITE on it"
	default:
		v.Problem = fmt.Sprintf("cannot describe the topic (%s): %v", roles, t.Err)
	}
	return v
}

// Warnings returns the settings that weaken the connector's guarantees
// without breaking them, one sentence per finding naming the topic and the
// setting, in topic order. The connector logs them at start and runs.
func (r Report) Warnings() []string {
	var out []string
	commandMax, commandTopic := r.largestCommandLimit()
	for _, t := range r.Topics {
		if !t.Exists {
			continue
		}
		out = append(out, t.warnings(r.Brokers)...)
		if t.ConfigsKnown && commandTopic != "" && t.MaxMessageBytes < commandMax {
			for _, role := range t.Roles {
				if role.carriesCommands() {
					out = append(out, fmt.Sprintf("%s: max.message.bytes %d is below %d of command topic %s: larger command records cannot be copied to this %s topic whole",
						t.Topic, t.MaxMessageBytes, commandMax, commandTopic, role))
					break
				}
			}
		}
	}
	return out
}

// warnings applies the soft rules that need only the topic itself.
func (t TopicReport) warnings(brokers int) []string {
	var out []string
	warn := func(format string, args ...any) {
		out = append(out, t.Topic+": "+fmt.Sprintf(format, args...))
	}
	if t.Leaderless > 0 {
		warn("%d of %d partitions have no leader", t.Leaderless, t.Partitions)
	}
	if t.ReplicationFactor == 1 {
		warn("replication factor 1 on a %d-broker cluster: losing that broker's disk loses the topic's records", brokers)
	}
	if !t.ConfigsKnown {
		warn("configuration not readable (%v): cleanup.policy, max.message.bytes and retention.ms unchecked", t.ConfigsErr)
		return out
	}
	if t.Write && t.ReplicationFactor > 1 && t.MinInsyncReplicas <= 1 {
		warn("min.insync.replicas %d with replication factor %d: once replicas fall behind, the leader alone acknowledges a write", t.MinInsyncReplicas, t.ReplicationFactor)
	}
	if t.Write && t.UncleanLeaderElection {
		warn("unclean.leader.election.enable=true: a failover to a lagging replica drops acknowledged records")
	}
	keep := time.Duration(t.RetentionMs) * time.Millisecond
	if t.RetentionMs >= 0 && hasPolicy(t.CleanupPolicy, "delete") {
		for _, role := range t.Roles {
			if role.keepsForRedrive() && keep < MinRedriveRetention {
				warn("retention.ms %d (%v) is shorter than %v: %s records may be deleted before anyone acts on them", t.RetentionMs, keep, MinRedriveRetention, role)
				break
			}
		}
		if t.Compacted && hasPolicy(t.CleanupPolicy, "compact") {
			warn("cleanup.policy %q with retention.ms %d: keys quiet for longer than %v are deleted, not kept", t.CleanupPolicy, t.RetentionMs, keep)
		}
	}
	return out
}

// largestCommandLimit returns the largest max.message.bytes among the known
// command topics, and that topic ("" when none is known).
func (r Report) largestCommandLimit() (int, string) {
	largest, topic := 0, ""
	for _, t := range r.Topics {
		if t.hasRole(Command) && t.ConfigsKnown && t.MaxMessageBytes > largest {
			largest, topic = t.MaxMessageBytes, t.Topic
		}
	}
	return largest, topic
}

// roleNames returns the topic's roles for messages: "command topic",
// "retry and dead-letter topic".
func (t TopicReport) roleNames() string {
	names := make([]string, 0, len(t.Roles))
	for _, r := range t.Roles {
		names = append(names, string(r))
	}
	return strings.Join(names, " and ") + " topic"
}

// hasPolicy reports whether a cleanup.policy list names policy.
func hasPolicy(list, policy string) bool {
	for _, p := range strings.Split(list, ",") {
		if strings.TrimSpace(p) == policy {
			return true
		}
	}
	return false
}
