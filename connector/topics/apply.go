package topics

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// Apply creates, through the admin API, every topic of the plan that rep
// (a Verify of the plan's topics) found missing, with the plan's partitions,
// replication factor and configurations. It changes no topic that exists:
// what differs in those is for an operator to decide (Plan.Differences
// names it). It returns the topics created, and an error joining one per
// topic that could not be (a refused policy, no CREATE right), each naming
// the topic. A topic created meanwhile by someone else is not an error.
// When a missing topic's replication factor exceeds the brokers rep counted,
// Apply creates nothing and returns a *TooFewBrokersError: Kafka would refuse
// each topic alike.
func Apply(ctx context.Context, adm *kadm.Client, plan Plan, rep Report) ([]string, error) {
	var missing Plan
	for _, spec := range plan {
		t, ok := rep.Topic(spec.Topic)
		if ok && (t.Exists || !errors.Is(t.Err, kerr.UnknownTopicOrPartition)) {
			continue
		}
		missing = append(missing, spec)
		if rep.Brokers > 0 && int(spec.ReplicationFactor) > rep.Brokers {
			return nil, &TooFewBrokersError{Topic: spec.Topic, ReplicationFactor: spec.ReplicationFactor, Brokers: rep.Brokers}
		}
	}
	var created []string
	var errs []error
	for _, spec := range missing {
		configs := make(map[string]*string, len(spec.Configs))
		for k, v := range spec.Configs {
			configs[k] = &v
		}
		resp, err := adm.CreateTopic(ctx, spec.Partitions, spec.ReplicationFactor, configs, spec.Topic)
		if err == nil {
			err = resp.Err
		}
		switch {
		case errors.Is(err, kerr.TopicAlreadyExists):
		case err != nil:
			errs = append(errs, fmt.Errorf("create topic %s: %w", spec.Topic, err))
		default:
			created = append(created, spec.Topic)
		}
	}
	return created, errors.Join(errs...)
}

// TooFewBrokersError is a topic to create whose replication factor exceeds
// the cluster's brokers: a partition's replicas are on distinct brokers.
type TooFewBrokersError struct {
	// Topic is the first such topic of the plan.
	Topic string
	// ReplicationFactor is its replication factor.
	ReplicationFactor int16
	// Brokers is the number of brokers of the cluster.
	Brokers int
}

func (e *TooFewBrokersError) Error() string {
	return fmt.Sprintf("replication factor %d of %s exceeds the %d brokers of the cluster (each replica of a partition needs its own broker); no topic created",
		e.ReplicationFactor, e.Topic, e.Brokers)
}
