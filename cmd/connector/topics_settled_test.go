package main

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/paysession/paysession/connector/topics"
)

// Right after a create, a broker may answer a topic's configuration with
// UNKNOWN_TOPIC_OR_PARTITION although its metadata already shows leaders:
// apply then waits, rather than report three differences from the plan for
// a topic it has just created as planned (found by make chaos: `topics
// apply` on a 3-node cluster failed that way). Another configuration error
// (no DESCRIBE_CONFIGS) is a warning of verify, not a reason to wait.
func TestApplyWaitsUntilCreatedTopicsConfigsAreReadable(t *testing.T) {
	rep := func(err error) topics.Report {
		return topics.Report{Topics: []topics.TopicReport{{Topic: "a", Exists: true, Partitions: 3, ConfigsErr: err}}}
	}
	if allLed(rep(fmt.Errorf("describe configs: %w", kerr.UnknownTopicOrPartition)), []string{"a"}) {
		t.Errorf("a created topic whose configuration the broker does not know yet counts as settled")
	}
	if !allLed(rep(nil), []string{"a"}) {
		t.Errorf("a led topic with a readable configuration does not count as settled")
	}
	if !allLed(rep(kerr.TopicAuthorizationFailed), []string{"a"}) {
		t.Errorf("a configuration the principal may not read makes apply wait; it is verify's warning")
	}
}
