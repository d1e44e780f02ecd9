package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/kit"
)

// subcommands are every subcommand, with an operand it takes (or "") and
// a flag of it whose value "x" is invalid (or "" for none).
var subcommands = []struct{ name, operand, flag string }{
	{"run", "", ""},
	{"demo", "", "timeout"},
	{"config", "", "describe=x"},
	{"check", "", "timeout"},
	{"redrive", "", "limit"},
	{"inspect", "", "samples"},
	{"produce", "capture", "timeout"},
	{"tail", "payments.command-results", "n"},
	{"lookup", "cap-0001", "timeout"},
	{"topics", "plan", "partitions"},
	{"status", "", "timeout"},
	{"pause", "capture", "timeout"},
	{"resume", "capture", "timeout"},
	{"version", "", ""},
}

// runArgs runs the connector with args and no variables set.
func runArgs(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	code = runWithInput(ctx, args, func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestHelpOfEverySubcommand: every spelling of the help, before or after
// the subcommand's flags and operand, prints its help on stdout and exits
// 0, with no configuration set and nothing on stderr. Before, -h exited 2
// with the help on stderr, and run -h and config -h printed configuration
// errors.
func TestHelpOfEverySubcommand(t *testing.T) {
	for _, sc := range subcommands {
		forms := [][]string{{sc.name, "-h"}, {sc.name, "--help"}, {sc.name, "-help"}, {"help", sc.name}}
		if sc.operand != "" {
			forms = append(forms, []string{sc.name, sc.operand, "-h"})
		}
		if sc.flag != "" {
			forms = append(forms, []string{sc.name, "-h", "-" + sc.flag, "x"})
		}
		for _, args := range forms {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, out, errOut := runArgs(t, args...)
				if code != exitOK || !strings.HasPrefix(out, "Usage: connector "+sc.name+" ") || errOut != "" {
					t.Fatalf("exit %d, want 0 with the help on stdout\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
				}
			})
		}
	}
}

// TestFlagsAnywhere: a flag is read as a flag before and after the
// operand (its bad value is named), and a wrong count of operands is an
// error naming what the subcommand takes; all exit 2, on stderr only.
// Before, a flag after the operand made produce, tail and lookup print
// their usage with no error, topics refused a flag before its verb, and
// the subcommands without operands ignored extra ones.
func TestFlagsAnywhere(t *testing.T) {
	for _, sc := range subcommands {
		type form struct {
			args []string
			want string
		}
		var forms []form
		if sc.flag != "" {
			// The flag package's words: invalid value "x" for flag -n,
			// invalid boolean value "x" for -describe.
			name, _, inline := strings.Cut(sc.flag, "=")
			bad := `value "x" for flag -` + name
			flagArgs := []string{"-" + name, "x"}
			if inline {
				flagArgs, bad = []string{"-" + sc.flag}, `value "x" for -`+name
			}
			forms = append(forms, form{append(append([]string{sc.name}, flagArgs...), sc.operand), bad})
			if sc.operand != "" {
				forms = append(forms, form{append([]string{sc.name, sc.operand}, flagArgs...), bad})
			}
		}
		switch sc.operand {
		case "":
			forms = append(forms, form{[]string{sc.name, "extra"}, `want no arguments, got ["extra"]`})
		case "capture":
			if sc.name == "produce" {
				forms = append(forms, form{[]string{sc.name, "capture", "refund"}, `want <kind>, got ["capture" "refund"]`},
					form{[]string{sc.name}, "want <kind>, got none"})
			}
		default:
			forms = append(forms, form{[]string{sc.name, sc.operand, "extra"}, `got ["` + sc.operand + `" "extra"]`})
		}
		for _, f := range forms {
			args := f.args
			if args[len(args)-1] == "" {
				args = args[:len(args)-1]
			}
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, out, errOut := runArgs(t, args...)
				if code != exitUsage || !strings.Contains(errOut, f.want) || out != "" {
					t.Fatalf("exit %d, want %d naming %q on stderr\nstdout:\n%s\nstderr:\n%s", code, exitUsage, f.want, out, errOut)
				}
			})
		}
	}
}

// TestTopicsFlagsBeforeVerb: topics reads its flags on either side of the
// verb (needs no cluster: plan). Before, a flag before the verb was an
// unknown command.
func TestTopicsFlagsBeforeVerb(t *testing.T) {
	for _, args := range [][]string{{"topics", "-partitions", "5", "plan"}, {"topics", "plan", "-partitions", "5"}} {
		code, out, errOut := runArgs(t, args...)
		if code != exitOK || !strings.Contains(out, "payments.commands.capture") {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
		for _, l := range lines(out) {
			if f := strings.Fields(l); len(f) == 8 && f[0] == "payments.commands.capture" && f[2] != "5" {
				t.Errorf("%v: %s, want 5 partitions", args, l)
			}
		}
	}
}

// TestTailFlagsAfterTopic: `tail TOPIC -n 1` reads the flag and prints one
// record. Before, it printed the usage and exited 2 with no error.
func TestTailFlagsAfterTopic(t *testing.T) {
	env, cl := kfakeEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	writeResult(ctx, t, cl, "cap-0001")
	var out, errOut bytes.Buffer
	code := run(ctx, []string{"tail", "payments.command-results", "-n", "1", "-timeout", "15s"}, func(k string) string { return env[k] }, &out, &errOut)
	if code != exitOK || !strings.Contains(out.String(), `"cap-0001"`) {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
}

// TestProduceKinds: produce takes a kind in its topic's spelling
// (init-payout) as well as its own (init_payout), and an unknown kind's
// error lists the kinds. Before, init-payout was an unknown kind and the
// error listed none.
func TestProduceKinds(t *testing.T) {
	env, _ := kfakeEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, kind := range []string{"init-payout", "init_payout"} {
		var out, errOut bytes.Buffer
		// A line without the command's fields: refused after the kind was read.
		in := strings.NewReader(`{"idempotency_key":"pay-0001"}`)
		code := runWithInput(ctx, []string{"produce", kind}, func(k string) string { return env[k] }, in, &out, &errOut)
		if code != exitUsage || !strings.Contains(errOut.String(), "line 1:") {
			t.Errorf("produce %s: exit %d, want the line refused\n%s", kind, code, errOut.String())
		}
	}
	code, _, errOut := runArgs(t, "produce", "payout")
	if code != exitUsage || !strings.Contains(errOut, `unknown command kind "payout"`) || !strings.Contains(errOut, "init_payout, init_payment") {
		t.Errorf("produce payout: exit %d, want the kinds listed\n%s", code, errOut)
	}
}

// TestUnreachableBrokerNamesCause: produce and pause against a broker
// that refuses connections fail naming the refusal, before their write
// timeout. Before, they waited out -timeout and said only "context
// deadline exceeded".
func TestUnreachableBrokerNamesCause(t *testing.T) {
	env := map[string]string{"PAYSESSION_KAFKA_BROKERS": closedAddr(t)}
	for _, args := range [][]string{
		{"produce", "-timeout", "3s", "capture"},
		{"pause", "-timeout", "3s", "capture"},
	} {
		t.Run(args[0], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			in := strings.NewReader(`{"idempotency_key":"cap-0001","session_id":"ps_11"}`)
			var out, errOut bytes.Buffer
			code := runWithInput(ctx, args, func(k string) string { return env[k] }, in, &out, &errOut)
			if code != exitFailed || !strings.Contains(errOut.String(), "connection refused") {
				t.Fatalf("exit %d, want 1 naming the refused connection\n%s", code, errOut.String())
			}
		})
	}
}

// TestTopicsApplyTooFewBrokers: apply with a replication factor above the
// cluster's brokers creates nothing and says so once, naming the flag.
// Before, it printed Kafka's INVALID_REPLICATION_FACTOR once per topic.
func TestTopicsApplyTooFewBrokers(t *testing.T) {
	env := kfakeTopicsEnv(t)
	code, out, errOut := runTopicsCmd(t, env, "apply")
	if code != exitFailed || strings.Count(errOut, "\n") > 2 || !strings.Contains(errOut, "exceeds the 1 brokers of the cluster") ||
		!strings.Contains(errOut, "give -replication 1") || strings.Contains(out, "created") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestTopicsVerifyUsesAppliedSettings: verify, and a second apply, start
// from the settings apply recorded on the control topic; a flag given
// overrides its setting. Before, verify compared with the defaults and
// reported every topic's partitions and replication.
func TestTopicsVerifyUsesAppliedSettings(t *testing.T) {
	env := kfakeTopicsEnv(t)
	code, out, errOut := runTopicsCmd(t, env, "apply", "-partitions", "2", "-replication", "1", "-min-insync-replicas", "1")
	if code != exitOK {
		t.Fatalf("apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut = runTopicsCmd(t, env, "verify")
	if code != exitOK || !strings.Contains(out, "topics as planned") || !strings.Contains(errOut, "settings: as applied by") {
		t.Fatalf("verify: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut = runTopicsCmd(t, env, "verify", "-partitions", "3")
	if code != exitFailed || !strings.Contains(out, "partitions") {
		t.Fatalf("verify -partitions 3: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// kfakeTopicsEnv returns the variables of `connector topics` pointed at
// an in-process cluster of one broker holding no topic.
func kfakeTopicsEnv(t *testing.T) map[string]string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return map[string]string{"PAYSESSION_KAFKA_BROKERS": strings.Join(c.ListenAddrs(), ",")}
}

// writeResult writes an accepted result of key to the results topic.
func writeResult(ctx context.Context, t *testing.T, cl *kgo.Client, key string) {
	t.Helper()
	v, err := kit.EncodeSingleObject(&kit.CommandResult{IdempotencyKey: key, Kind: kit.KindCapture,
		Status: kit.StatusAccepted, CompletedAt: time.Unix(1700000000, 0).UTC()})
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "payments.command-results", Key: []byte(key), Value: v}).FirstErr(); err != nil {
		t.Fatal(err)
	}
}
