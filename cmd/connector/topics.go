package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/connector/topics"
	"github.com/paysession/paysession/internal/config"
)

const topicsUsage = `Usage: connector topics <plan|apply|verify> [flags]

  plan    print every topic the configuration uses, as apply would create it
          (needs no cluster)
  apply   create the missing topics through the admin API, then verify
  verify  compare the cluster's topics with the plan; exit 1 naming every
          difference, and every problem the connector's start-up check refuses

The topic names, PAYSESSION_WEBHOOK_MAX_BODY_BYTES and the periodic
publishers come from the PAYSESSION_* variables, as for 'connector run'; the
flags below are the operator's choices (the same for all three commands).

Flags:
`

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

// topicsFlags binds the plan's settings to flags of fs.
func topicsFlags(fs *flag.FlagSet) *topics.Settings {
	s := topics.DefaultSettings()
	fs.Func("partitions", "partitions of each command, retry, attempts, results, dead-letter and periodic topic (default "+strconv.Itoa(int(s.Partitions))+")", int32Flag(&s.Partitions))
	fs.Func("session-partitions", "partitions of the session-updates, sessions and webhook-events topics, one count for the three (default: -partitions)", int32Flag(&s.SessionPartitions))
	fs.Func("replication", "replication factor of every topic (default "+strconv.Itoa(int(s.ReplicationFactor))+")", func(v string) error {
		n, err := strconv.ParseInt(v, 10, 16)
		s.ReplicationFactor = int16(n)
		return err
	})
	fs.IntVar(&s.MinInsyncReplicas, "min-insync-replicas", s.MinInsyncReplicas, "min.insync.replicas of every topic, at most -replication")
	fs.IntVar(&s.MaxMessageBytes, "max-message-bytes", s.MaxMessageBytes, "max.message.bytes of the command topics (the retry and dead-letter topics get 64 KiB more, to copy a command whole)")
	fs.DurationVar(&s.RedriveRetention, "redrive-retention", s.RedriveRetention, "retention of the retry and dead-letter topics, at least 168h")
	return &s
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
	fs := newFlagSet("topics", stderr)
	settings := topicsFlags(fs)
	timeout := fs.Duration("timeout", time.Minute, "give up talking to the cluster after this long")
	fs.Usage = func() {
		fmt.Fprint(stderr, topicsUsage)
		fs.PrintDefaults()
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fs.Usage()
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	verb := args[0]
	if verb != "plan" && verb != "apply" && verb != "verify" {
		fmt.Fprintf(stderr, "connector topics: unknown command %q\n\n", verb)
		fs.Usage()
		return exitUsage
	}
	if err := fs.Parse(args[1:]); err != nil {
		return exitUsage
	}
	cfg, ok := loadConfig(ctx, topicsEnv(env, verb == "plan"), stderr)
	if !ok {
		return exitUsage
	}
	plan, err := connector.TopicPlan(cfg, *settings)
	if err != nil {
		fmt.Fprintf(stderr, "connector topics: %v\n", err)
		return exitUsage
	}
	if verb == "plan" {
		printPlan(stdout, plan)
		return exitOK
	}
	// A short metadata age, so that the verify after apply sees the
	// topics created as soon as the brokers know them.
	cl, code := kafkaClient("topics", cfg.Kafka, stderr, kgo.MetadataMinAge(100*time.Millisecond))
	if cl == nil {
		return code
	}
	defer cl.Close()
	tctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	adm := kadm.NewClient(cl)
	wants := connector.TopicWants(cfg)
	rep, err := topics.Verify(tctx, adm, wants)
	if err != nil {
		fmt.Fprintf(stderr, "connector topics: %v\n", err)
		return exitFailed
	}
	if verb == "apply" {
		if rep, err = applyPlan(tctx, adm, plan, rep, wants, stdout); err != nil {
			fmt.Fprintf(stderr, "connector topics apply: %v\n", err)
			return exitFailed
		}
	}
	return reportDifferences(plan, rep, stdout, stderr)
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
// partition.
func allLed(rep topics.Report, names []string) bool {
	for _, n := range names {
		if t, ok := rep.Topic(n); !ok || !t.Exists || t.Leaderless > 0 {
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
