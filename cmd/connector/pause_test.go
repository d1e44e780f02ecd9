package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/control"
)

// TestPauseAndResumeWriteControlRecords: pause and resume write one record
// per kind named (every kind when none is) to the control topic, which
// control.Decode reads; an unknown kind writes nothing.
func TestPauseAndResumeWriteControlRecords(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "payments.control"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	env := map[string]string{"PAYSESSION_KAFKA_BROKERS": strings.Join(c.ListenAddrs(), ",")}
	getenv := func(k string) string { return env[k] }
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, args := range [][]string{{"pause", "-by", "ops", "capture", "refund"}, {"resume", "-by", "ops", "refund"}, {"pause"}} {
		var out, errOut bytes.Buffer
		if code := run(ctx, args, getenv, &out, &errOut); code != exitOK {
			t.Fatalf("%v: exit %d\n%s", args, code, errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := run(ctx, []string{"resume", "no_such_kind"}, getenv, &out, &errOut); code != exitUsage ||
		!strings.Contains(errOut.String(), "no_such_kind") {
		t.Fatalf("unknown kind: exit %d\n%s", code, errOut.String())
	}

	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics("payments.control"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var got []string
	for len(got) < 16 && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			rec, err := control.Decode(r.Value)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) < 3 && rec.By != "ops" {
				t.Errorf("record %d by %q, want ops", len(got), rec.By)
			}
			got = append(got, string(r.Key)+map[bool]string{true: "+", false: "-"}[rec.Paused])
		})
	}
	if len(got) != 16 || strings.Join(got[:3], " ") != "capture+ refund+ refund-" {
		t.Fatalf("control records %v, want capture+ refund+ refund- and then every kind paused", got)
	}
}
