package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/connector/topics"
	"github.com/paysession/paysession/internal/config"
)

// topicsAbout is the help of `connector topics` between its usage line
// and its flags.
const topicsAbout = `  plan    print every topic the configuration uses, as apply would create it
          (needs no cluster: the flags over the defaults)
  apply   create the missing topics through the admin API, record the settings
          on the control topic, then verify
  verify  compare the cluster's topics with the plan; exit 1 naming every
          difference, and every problem the connector's start-up check refuses

The topic names, PAYSESSION_WEBHOOK_MAX_BODY_BYTES and the periodic
publishers come from the PAYSESSION_* variables, as for 'connector run'. The
flags below are the operator's settings. apply and verify start from the
settings the last apply recorded on the control topic (PAYSESSION_TOPIC_CONTROL),
else from the defaults shown; a flag given overrides its setting, and apply
records the result. So 'topics verify' needs no flags after 'topics apply'.`

// topicsEnvKeys are the variables besides topicsEnvSections that change the
// topic list or sizes: the webhook body bound and the API version (the
// periodic publishers need version 1).
var (
	topicsEnvSections = []string{"KAFKA_", "TOPIC_", "PUBLISH_", "LOG_"}
	topicsEnvKeys     = []string{"WEBHOOK_MAX_BODY_BYTES", "API_VERSION"}
)

// topicsEnv is env restricted to what decides the topics, plus
// clientPlaceholders; plan, which connects to nothing, gets a placeholder
// broker when none is set.
func topicsEnv(env envconfig.Lookuper, plan bool) envconfig.Lookuper {
	return envconfig.LookuperFunc(func(k string) (string, bool) {
		name := strings.TrimPrefix(k, config.Prefix)
		for _, s := range topicsEnvSections {
			if strings.HasPrefix(name, s) {
				if v, ok := env.Lookup(k); ok || !plan || name != "KAFKA_BROKERS" {
					return v, ok
				}
				return "127.0.0.1:9", true // never dialled; loopback, so no TLS is required of it
			}
		}
		for _, key := range topicsEnvKeys {
			if name == key {
				return env.Lookup(k)
			}
		}
		v, ok := clientPlaceholders[k]
		return v, ok
	})
}

// planFlags are the topic settings of a command line (topics, check): the
// defaults, and the flags given over them.
type planFlags struct {
	topics.Settings
	fs *flag.FlagSet
}

// settingFlags names the flag of each field of topics.Settings that has one,
// and copies that field.
var settingFlags = []struct {
	field, flag string
	copy        func(dst, src *topics.Settings)
}{
	{"Partitions", "partitions", func(d, s *topics.Settings) { d.Partitions = s.Partitions }},
	{"SessionPartitions", "session-partitions", func(d, s *topics.Settings) { d.SessionPartitions = s.SessionPartitions }},
	{"ReplicationFactor", "replication", func(d, s *topics.Settings) { d.ReplicationFactor = s.ReplicationFactor }},
	{"MinInsyncReplicas", "min-insync-replicas", func(d, s *topics.Settings) { d.MinInsyncReplicas = s.MinInsyncReplicas }},
	{"MaxMessageBytes", "max-message-bytes", func(d, s *topics.Settings) { d.MaxMessageBytes = s.MaxMessageBytes }},
	{"RedriveRetention", "redrive-retention", func(d, s *topics.Settings) { d.RedriveRetention = s.RedriveRetention }},
}

// topicsFlags binds the plan's settings to flags of fs.
func topicsFlags(fs *flag.FlagSet) *planFlags {
	p := &planFlags{Settings: topics.DefaultSettings(), fs: fs}
	s := &p.Settings
	fs.Func("partitions", "partitions of each command, retry, attempts, results, dead-letter and periodic topic (default "+strconv.Itoa(int(s.Partitions))+")", int32Flag(&s.Partitions))
	fs.Func("session-partitions", "partitions of the session-updates, sessions and webhook-events topics, one count for the three (default: -partitions)", int32Flag(&s.SessionPartitions))
	fs.Func("replication", "replication factor of every topic, at most the cluster's brokers (default "+strconv.Itoa(int(s.ReplicationFactor))+")", func(v string) error {
		n, err := strconv.ParseInt(v, 10, 16)
		s.ReplicationFactor = int16(n)
		return err
	})
	fs.IntVar(&s.MinInsyncReplicas, "min-insync-replicas", s.MinInsyncReplicas, "min.insync.replicas of every topic, at most -replication")
	fs.IntVar(&s.MaxMessageBytes, "max-message-bytes", s.MaxMessageBytes, "max.message.bytes of the command topics (the retry and dead-letter topics get 64 KiB more, to copy a command whole)")
	fs.DurationVar(&s.RedriveRetention, "redrive-retention", s.RedriveRetention, "retention of the retry and dead-letter topics, at least 168h")
	return p
}

// over returns base with the setting of every flag given.
func (p *planFlags) over(base topics.Settings) topics.Settings {
	for _, sf := range settingFlags {
		if flagGiven(p.fs, sf.flag) {
			sf.copy(&base, &p.Settings)
		}
	}
	return base
}

// flagGiven reports whether the flag name was set on fs's command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// validateSettings is s.Validate with each problem named by its flag.
func validateSettings(s topics.Settings) error {
	err := s.Validate()
	if err == nil {
		return nil
	}
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	var msgs []string
	for _, e := range errs {
		msg := e.Error()
		var se *topics.SettingError
		if errors.As(e, &se) {
			for _, sf := range settingFlags {
				if sf.field == se.Field {
					msg = "-" + sf.flag + ": " + se.Problem
				}
			}
		}
		msgs = append(msgs, msg)
	}
	return errors.New(strings.Join(msgs, "; "))
}

// int32Flag parses a flag's value into p.
func int32Flag(p *int32) func(string) error {
	return func(v string) error {
		n, err := strconv.ParseInt(v, 10, 32)
		*p = int32(n)
		return err
	}
}

// runTopics is `connector topics plan|apply|verify`.
func runTopics(ctx context.Context, args []string, env envconfig.Lookuper, stdout, stderr io.Writer) int {
	fs := newCmdLine("topics", "<plan|apply|verify>", topicsAbout, 1, 1)
	flags := topicsFlags(fs.FlagSet)
	timeout := fs.Duration("timeout", time.Minute, "give up talking to the cluster after this long")
	pos, code, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	verb := pos[0]
	if verb != "plan" && verb != "apply" && verb != "verify" {
		return fs.fail(stderr, fmt.Sprintf("unknown command %q: want plan, apply or verify", verb))
	}
	if verb == "plan" {
		if err := validateSettings(flags.over(topics.DefaultSettings())); err != nil {
			return fs.fail(stderr, err.Error())
		}
	}
	cfg, ok := loadConfig(ctx, topicsEnv(env, verb == "plan"), stderr)
	if !ok {
		return exitUsage
	}
	if verb == "plan" {
		plan, err := connector.TopicPlan(cfg, flags.over(topics.DefaultSettings()))
		if err != nil {
			fmt.Fprintf(stderr, "connector topics: %v\n", err)
			return exitUsage
		}
		printPlan(stdout, plan)
		return exitOK
	}
	// A short metadata age, so that the verify after apply sees the
	// topics created as soon as the brokers know them; committed reads
	// that keep control records, as lookup.Read wants for the recorded
	// settings.
	cl, code := kafkaClient("topics", cfg.Kafka, stderr, kgo.MetadataMinAge(100*time.Millisecond),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	if cl == nil {
		return code
	}
	defer cl.Close()
	tctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	adm := kadm.NewClient(cl.Client)
	wants := connector.TopicWants(cfg)
	rep, err := topics.Verify(tctx, adm, wants)
	if err != nil {
		fmt.Fprintf(stderr, "connector topics: %v\n", cl.explain(err))
		return exitFailed
	}
	base, source, err := recordedSettings(tctx, cl.Client, rep, cfg.Topics.Control)
	if err != nil {
		fmt.Fprintf(stderr, "connector topics: %v\n", cl.explain(err))
		return exitFailed
	}
	fmt.Fprintln(stderr, source)
	settings := flags.over(base)
	if err := validateSettings(settings); err != nil {
		return fs.fail(stderr, err.Error())
	}
	plan, err := connector.TopicPlan(cfg, settings)
	if err != nil {
		fmt.Fprintf(stderr, "connector topics: %v\n", err)
		return exitUsage
	}
	if verb == "apply" {
		if rep, err = applyPlan(tctx, adm, plan, rep, wants, stdout); err != nil {
			fmt.Fprintf(stderr, "connector topics apply: %v\n", applyError(cl.explain(err)))
			return exitFailed
		}
		if err := recordSettings(tctx, cl, cfg.Topics.Control, settings); err != nil {
			fmt.Fprintf(stderr, "connector topics apply: record the settings on %s: %v\n", cfg.Topics.Control, cl.explain(err))
			return exitFailed
		}
	}
	return reportDifferences(plan, rep, stdout, stderr)
}

// applyError says, of a plan the cluster has too few brokers for, which
// flag to change.
func applyError(err error) error {
	var few *topics.TooFewBrokersError
	if errors.As(err, &few) {
		return fmt.Errorf("%w: give -replication %d or less (and -min-insync-replicas at most that)", err, few.Brokers)
	}
	return err
}

// applyPlan creates the missing topics, prints each, and returns the report
// of the cluster once every created topic has a leader for each partition.
func applyPlan(ctx context.Context, adm *kadm.Client, plan topics.Plan, rep topics.Report, wants []topics.Want, stdout io.Writer) (topics.Report, error) {
	created, err := topics.Apply(ctx, adm, plan, rep)
	for _, name := range created {
		spec, _ := plan.Topic(name)
		fmt.Fprintf(stdout, "created %s (%d partitions, replication %d)\n", name, spec.Partitions, spec.ReplicationFactor)
	}
	if err != nil {
		return rep, err
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		if rep, err = topics.Verify(ctx, adm, wants); err != nil {
			return rep, err
		}
		if allLed(rep, created) {
			return rep, nil
		}
		select {
		case <-ctx.Done():
			return rep, fmt.Errorf("created topics not all led by a broker yet: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// allLed reports whether every named topic exists with a leader for each
// partition, and its configuration can be read: right after a create, the
// broker asked for it may not know the topic yet (UNKNOWN_TOPIC_OR_PARTITION),
// which is no difference from the plan, only a moment too early.
func allLed(rep topics.Report, names []string) bool {
	for _, n := range names {
		t, ok := rep.Topic(n)
		if !ok || !t.Exists || t.Leaderless > 0 || errors.Is(t.ConfigsErr, kerr.UnknownTopicOrPartition) {
			return false
		}
	}
	return true
}

// reportDifferences prints every problem of rep and every difference from
// the plan, one per line, and the warnings of rep on stderr; it returns
// exitFailed when there is any problem or difference.
func reportDifferences(plan topics.Plan, rep topics.Report, stdout, stderr io.Writer) int {
	n := 0
	for _, v := range rep.Violations() {
		fmt.Fprintln(stdout, v.Error())
		n++
	}
	for _, d := range plan.Differences(rep) {
		fmt.Fprintln(stdout, d.String())
		n++
	}
	for _, w := range rep.Warnings() {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if n > 0 {
		fmt.Fprintf(stderr, "connector topics: %d differences from the plan\n", n)
		return exitFailed
	}
	fmt.Fprintf(stdout, "%d topics as planned\n", len(plan))
	return exitOK
}

// printPlan writes the plan as a table, then the topics that must share a
// partition count.
func printPlan(w io.Writer, plan topics.Plan) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOPIC\tROLE\tPARTITIONS\tREPLICATION\tMIN.INSYNC.REPLICAS\tCLEANUP.POLICY\tRETENTION.MS\tMAX.MESSAGE.BYTES")
	for _, s := range plan {
		roles := make([]string, len(s.Roles))
		for i, r := range s.Roles {
			roles[i] = string(r)
		}
		retention := s.Configs[topics.RetentionMs]
		if retention == "" {
			retention = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", s.Topic, strings.Join(roles, ","), s.Partitions, s.ReplicationFactor,
			s.Configs[topics.MinInsyncReplicas], s.Configs[topics.CleanupPolicy], retention, s.Configs[topics.MaxMessageBytes])
	}
	tw.Flush()
	groups := map[string][]string{}
	var anchors []string
	for _, s := range plan {
		if s.PartitionsLike == "" {
			continue
		}
		if _, ok := groups[s.PartitionsLike]; !ok {
			anchors = append(anchors, s.PartitionsLike)
		}
		groups[s.PartitionsLike] = append(groups[s.PartitionsLike], s.Topic)
	}
	for _, a := range anchors {
		spec, _ := plan.Topic(a)
		fmt.Fprintf(w, "\nsame partition count (%d): %s, %s (the session writer reads partition p of the first and writes partition p of the others)\n",
			spec.Partitions, a, strings.Join(groups[a], ", "))
	}
}
