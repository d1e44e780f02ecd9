package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/control"
	"github.com/paysession/paysession/connector/kit"
)

// runPause is `connector pause [kinds…]` (paused true) and `connector
// resume [kinds…]` (false): one record per kind on the control topic
// (PAYSESSION_TOPIC_CONTROL), every kind when none is named. Every
// replica obeys it (connector/control); whoever may write the topic may
// pause, as Kafka's ACLs say.
func runPause(ctx context.Context, cmd string, paused bool, args []string, env envconfig.Lookuper, stdout, stderr io.Writer) int {
	fs := newCmdLine(cmd, "[kind...]", "Pauses (or resumes) new API calls of the named command kinds on every replica; every kind when none is named.\nIt writes to the control topic (PAYSESSION_TOPIC_CONTROL), which every replica reads.\n\n"+kindsHelp(), 0, -1)
	by := fs.String("by", defaultBy(), "who pauses or resumes (recorded with the state, shown in /readyz and the log)")
	timeout := fs.Duration("timeout", 30*time.Second, "give up writing after this long")
	connect := fs.Duration("connect-timeout", 10*time.Second, "fail when the brokers do not answer within this long")
	names, code, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	var kinds []string
	for _, name := range names {
		k, err := parseKind(name)
		if err != nil {
			fmt.Fprintf(stderr, "connector %s: %v\n", cmd, err)
			return exitUsage
		}
		kinds = append(kinds, string(k))
	}
	if len(kinds) == 0 {
		for _, k := range kit.Kinds() {
			kinds = append(kinds, string(k))
		}
	}
	cfg, ok := loadClientConfig(ctx, env, stderr)
	if !ok {
		return exitUsage
	}
	cl, code := kafkaClient(cmd, cfg.Kafka, stderr, kgo.RequiredAcks(kgo.AllISRAcks()))
	if cl == nil {
		return code
	}
	defer cl.Close()
	if err := cl.brokersAnswer(ctx, *connect); err != nil {
		fmt.Fprintf(stderr, "connector %s: %v\n", cmd, err)
		return exitFailed
	}
	pctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	value := control.Record{Paused: paused, By: *by, At: time.Now().UTC()}.Encode()
	recs := make([]*kgo.Record, 0, len(kinds))
	for _, k := range kinds {
		recs = append(recs, &kgo.Record{Topic: cfg.Topics.Control, Key: []byte(k), Value: value})
	}
	if err := cl.ProduceSync(pctx, recs...).FirstErr(); err != nil {
		fmt.Fprintf(stderr, "connector %s: %s: %v\n", cmd, cfg.Topics.Control, cl.explain(err))
		return exitFailed
	}
	for _, k := range kinds {
		fmt.Fprintf(stdout, "%s: %s\n", k, map[bool]string{true: "paused", false: "resumed"}[paused])
	}
	return exitOK
}

// defaultBy names the operator: the user and host the command runs as.
func defaultBy() string {
	host, _ := os.Hostname()
	return os.Getenv("USER") + "@" + host
}
