package topics

import (
	"fmt"
	"strconv"
)

// Difference is one way a topic in the cluster differs from its plan.
type Difference struct {
	// Topic is the topic's name.
	Topic string
	// Setting is "partitions", "replication factor" or a topic
	// configuration key.
	Setting string
	// Want is the plan's value; Have is the cluster's.
	Want, Have string
}

// String returns "topic: setting is have, the plan wants want".
func (d Difference) String() string {
	return fmt.Sprintf("%s: %s is %s, the plan wants %s", d.Topic, d.Setting, d.Have, d.Want)
}

// Differences compares the described topics with the plan, setting by
// setting: partitions, replication factor and each planned configuration.
// What Report.Err already reports is left out: a missing or hidden topic
// (it has no settings to compare) and a setting a *Violation names for the
// topic (an uncompacted sessions topic, partition counts that differ within
// the topics partitioned alike). A topic whose configuration could not be
// read differs in each planned configuration, with Have saying why.
func (p Plan) Differences(rep Report) []Difference {
	reported := map[[2]string]bool{}
	for _, v := range rep.Violations() {
		reported[[2]string{v.Topic, v.Setting}] = true
	}
	var out []Difference
	add := func(topic, setting, want, have string) {
		if want != have && !reported[[2]string{topic, setting}] {
			out = append(out, Difference{Topic: topic, Setting: setting, Want: want, Have: have})
		}
	}
	for _, spec := range p {
		t, ok := rep.Topic(spec.Topic)
		if !ok || !t.Exists {
			continue
		}
		add(t.Topic, "partitions", strconv.Itoa(int(spec.Partitions)), strconv.Itoa(t.Partitions))
		add(t.Topic, "replication factor", strconv.Itoa(int(spec.ReplicationFactor)), strconv.Itoa(t.ReplicationFactor))
		for _, key := range []string{CleanupPolicy, MinInsyncReplicas, MaxMessageBytes, RetentionMs} {
			want, planned := spec.Configs[key]
			if !planned {
				continue
			}
			add(t.Topic, key, want, t.configValue(key))
		}
	}
	return out
}

// configValue returns the topic's effective value of a planned
// configuration key, or why it is not known.
func (t TopicReport) configValue(key string) string {
	if !t.ConfigsKnown {
		return fmt.Sprintf("unknown (%v)", t.ConfigsErr)
	}
	switch key {
	case CleanupPolicy:
		return t.CleanupPolicy
	case MinInsyncReplicas:
		return strconv.Itoa(t.MinInsyncReplicas)
	case MaxMessageBytes:
		return strconv.Itoa(t.MaxMessageBytes)
	case RetentionMs:
		return strconv.FormatInt(t.RetentionMs, 10)
	}
	return ""
}
