package topics

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Verify describes every wanted topic, one metadata and one DescribeConfigs
// request for all of them, and returns what it found. Its error means the
// cluster could not be asked at all (unreachable, no metadata); what is wrong
// with the topics is in the Report (Report.Err, Report.Warnings).
//
// adm must wrap a client without kgo.AllowAutoTopicCreation: with it, asking
// about a missing topic may create it with the broker's defaults. When the
// principal may not describe some topic, kadm fails the whole request; Verify
// then asks topic by topic to name each one. Wants naming the same topic are
// merged. kadm answers from its client's metadata cache: on a long-lived
// client (re-verifying at run time) what Verify sees of a topic may be up to
// kgo.MetadataMinAge old (5s by default).
func Verify(ctx context.Context, adm *kadm.Client, wants []Want) (Report, error) {
	rep := Report{Topics: merge(wants)}
	if len(rep.Topics) == 0 {
		return rep, nil
	}
	if err := describeTopics(ctx, adm, &rep); err != nil {
		return Report{}, err
	}
	if err := describeConfigs(ctx, adm, &rep); err != nil {
		return Report{}, err
	}
	return rep, nil
}

// merge returns one TopicReport per distinct topic of wants, in order.
func merge(wants []Want) []TopicReport {
	var out []TopicReport
	index := map[string]int{}
	for _, w := range wants {
		i, ok := index[w.Topic]
		if !ok {
			i = len(out)
			index[w.Topic] = i
			out = append(out, TopicReport{Topic: w.Topic})
		}
		t := &out[i]
		t.Roles = append(t.Roles, w.Role)
		t.Compacted = t.Compacted || w.Compacted
		t.Write = t.Write || w.Write
		t.Read = t.Read || w.Read
		if w.PartitionsLike != "" {
			t.PartitionsLike = w.PartitionsLike
		}
	}
	return out
}

// names returns the topics of rep whose report satisfies keep.
func names(rep *Report, keep func(TopicReport) bool) []string {
	var out []string
	for _, t := range rep.Topics {
		if keep(t) {
			out = append(out, t.Topic)
		}
	}
	return out
}

// describeTopics fills existence, partitions and replication from metadata.
func describeTopics(ctx context.Context, adm *kadm.Client, rep *Report) error {
	all := names(rep, func(TopicReport) bool { return true })
	md, err := adm.Metadata(ctx, all...)
	var auth *kadm.AuthError
	if errors.As(err, &auth) {
		return describeTopicsOneByOne(ctx, adm, rep)
	}
	if err != nil {
		return fmt.Errorf("describe topics: %w", err)
	}
	rep.Brokers = len(md.Brokers)
	for i := range rep.Topics {
		applyMetadata(&rep.Topics[i], md.Topics)
	}
	return nil
}

// describeTopicsOneByOne is describeTopics when some topic may not be
// described: it learns which, at one request per topic.
func describeTopicsOneByOne(ctx context.Context, adm *kadm.Client, rep *Report) error {
	md, err := adm.BrokerMetadata(ctx)
	if err != nil {
		return fmt.Errorf("describe brokers: %w", err)
	}
	rep.Brokers = len(md.Brokers)
	for i := range rep.Topics {
		t := &rep.Topics[i]
		md, err := adm.Metadata(ctx, t.Topic)
		var auth *kadm.AuthError
		switch {
		case errors.As(err, &auth):
			t.Err = auth.Err
		case err != nil:
			return fmt.Errorf("describe topic %s: %w", t.Topic, err)
		default:
			applyMetadata(t, md.Topics)
		}
	}
	return nil
}

// applyMetadata sets t's existence, partitions and replication from the
// metadata of the topics asked about.
func applyMetadata(t *TopicReport, tds kadm.TopicDetails) {
	td, ok := tds[t.Topic]
	switch {
	case !ok:
		t.Err = kerr.UnknownTopicOrPartition
		return
	case td.Err != nil:
		t.Err = td.Err
		return
	}
	t.Exists = true
	t.Partitions = len(td.Partitions)
	t.ReplicationFactor = 0
	for _, p := range td.Partitions {
		if p.Err != nil || p.Leader < 0 {
			t.Leaderless++
		}
		if t.ReplicationFactor == 0 || len(p.Replicas) < t.ReplicationFactor {
			t.ReplicationFactor = len(p.Replicas)
		}
	}
}

// describeConfigs fills the settings of the topics that exist. A principal
// without DESCRIBE_CONFIGS is not an error: those topics keep ConfigsKnown
// false and ConfigsErr says why.
func describeConfigs(ctx context.Context, adm *kadm.Client, rep *Report) error {
	existing := names(rep, func(t TopicReport) bool { return t.Exists })
	if len(existing) == 0 {
		return nil
	}
	rcs, err := adm.DescribeTopicConfigs(ctx, existing...)
	var auth *kadm.AuthError
	if errors.As(err, &auth) {
		for _, name := range existing {
			one, err := adm.DescribeTopicConfigs(ctx, name)
			if err != nil && !errors.As(err, &auth) {
				return fmt.Errorf("describe configs of %s: %w", name, err)
			}
			rcs = append(rcs, configsOrErr(name, one, err)...)
		}
	} else if err != nil {
		var shards *kadm.ShardErrors
		if !errors.As(err, &shards) || shards.AllFailed {
			return fmt.Errorf("describe topic configs: %w", err)
		}
		// Some answered: the others keep ConfigsErr below.
	}
	for i := range rep.Topics {
		t := &rep.Topics[i]
		if !t.Exists {
			continue
		}
		rc, lookErr := rcs.On(t.Topic, nil)
		switch {
		case lookErr != nil:
			t.ConfigsErr = fmt.Errorf("no configs returned: %w", firstErr(err, lookErr))
		case rc.Err != nil:
			t.ConfigsErr = rc.Err
		default:
			applyConfigs(t, rc.Configs)
		}
	}
	return nil
}

// configsOrErr returns the configs of one topic, or a resource carrying err.
func configsOrErr(name string, rcs kadm.ResourceConfigs, err error) kadm.ResourceConfigs {
	if err != nil {
		return kadm.ResourceConfigs{{Name: name, Err: err}}
	}
	return rcs
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// applyConfigs sets t's settings from its described configs.
func applyConfigs(t *TopicReport, configs []kadm.Config) {
	t.ConfigsKnown = true
	t.RetentionMs = -1
	for _, c := range configs {
		v := c.MaybeValue()
		switch c.Key {
		case "cleanup.policy":
			t.CleanupPolicy = v
		case "max.message.bytes":
			t.MaxMessageBytes, _ = strconv.Atoi(v)
			t.MaxMessageBytesOverridden = c.Source == kmsg.ConfigSourceDynamicTopicConfig
		case "min.insync.replicas":
			t.MinInsyncReplicas, _ = strconv.Atoi(v)
		case "retention.ms":
			if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
				t.RetentionMs = ms
			}
		case "unclean.leader.election.enable":
			t.UncleanLeaderElection, _ = strconv.ParseBool(v)
		}
	}
}
