package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDemoStory runs `connector demo` as a subprocess and checks that every
// step of the story produced its outcome and no card number was printed.
func TestDemoStory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the demo binary")
	}
	bin := filepath.Join(t.TempDir(), "connector")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "demo", "-timeout", "60s")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("demo: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"✓ payroll payouts succeeded", "✓ large payout confirmed upstream", "✓ hold captured",
		"✓ partial refund accepted", "✓ chargeback reported", "✓ recurring token disabled",
		"✓ FPS recipient verified", "✓ invalid command dead-lettered", "done: 8 steps",
		"ready_to_confirm", "ready_to_capture", "payment_refunded",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if m := regexp.MustCompile(`\b\d{13,19}\b`).FindString(out + stderr.String()); m != "" {
		t.Errorf("demo printed a full card-like number %s…", m[:6])
	}
	if t.Failed() {
		t.Logf("stdout:\n%s", out)
	}
}

// TestConfigErrorsAllNamed: several bad variables are all named in one error.
func TestConfigErrorsAllNamed(t *testing.T) {
	env := map[string]string{
		"PAYSESSION_API_VERSION":                  "3",
		"PAYSESSION_PIPELINE_MAX_IN_FLIGHT":       "many",
		"PAYSESSION_API_SIGNATURE_PADDING":        "oaep",
		"PAYSESSION_PIPELINE_KEY_LIFETIME_MARGIN": "25h",
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"config"}, func(k string) string { return env[k] }, &stdout, &stderr)
	if code != exitUsage {
		t.Fatalf("exit code %d, want %d", code, exitUsage)
	}
	for _, name := range []string{"PAYSESSION_API_VERSION", "PAYSESSION_PIPELINE_MAX_IN_FLIGHT",
		"PAYSESSION_API_SIGNATURE_PADDING", "PAYSESSION_PIPELINE_KEY_LIFETIME_MARGIN",
		"PAYSESSION_API_BASE_URL", "PAYSESSION_API_PROJECT", "PAYSESSION_KAFKA_BROKERS"} {
		if !strings.Contains(stderr.String(), name) {
			t.Errorf("error does not name %s:\n%s", name, stderr.String())
		}
	}
}

// TestRunRefusesUnknownVariables: `run` with a misspelt PAYSESSION_
// variable in its environment stops before anything starts, naming it and
// the variable meant; before, the variable was ignored and its default
// applied.
func TestRunRefusesUnknownVariables(t *testing.T) {
	t.Setenv("PAYSESSION_KAFKA_BROKER", "127.0.0.1:1")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"run"}, func(string) string { return "" }, &stdout, &stderr)
	if code != exitUsage {
		t.Fatalf("exit code %d, want %d", code, exitUsage)
	}
	if want := "PAYSESSION_KAFKA_BROKER: not a variable of the connector (did you mean PAYSESSION_KAFKA_BROKERS?)"; !strings.Contains(stderr.String(), want) {
		t.Fatalf("stderr does not say %q:\n%s", want, stderr.String())
	}
}

func TestUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{{nil, exitUsage}, {[]string{"nope"}, exitUsage}, {[]string{"help"}, exitOK}} {
		var out, errOut bytes.Buffer
		if got := run(context.Background(), c.args, func(string) string { return "" }, &out, &errOut); got != c.code {
			t.Errorf("run(%v) = %d, want %d", c.args, got, c.code)
		}
		if !strings.Contains(out.String()+errOut.String(), "Usage: connector") {
			t.Errorf("run(%v) printed no usage", c.args)
		}
	}
}

// TestMetricsMoveAfterCommands plays the demo story in-process and scrapes
// /metrics: the command, webhook and transaction counters have moved.
func TestMetricsMoveAfterCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the embedded system")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	env, err := startDemoEnv(ctx, dir, discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.sandbox.Close(); env.kafka.Close() })
	cctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- env.connector.Run(cctx) }()
	if err := playStory(ctx, env, &printer{w: io.Discard}); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + env.connector.OpsAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	stop()
	if err := <-done; err != nil {
		t.Fatalf("connector Run: %v", err)
	}
	for _, re := range []string{
		`paysession_pipeline_commands_total\{kind="init_payout",status="accepted"\} [3-9]`,
		`paysession_pipeline_commands_total\{kind="init_payout",status="invalid"\} 1`,
		`paysession_pipeline_transactions_total\{result="commit"\} [1-9]`,
		`paysession_webhook_requests_total\{[^}]*type="payment_finished"[^}]*\} [1-9]`,
		`paysession_pipeline_dead_letters_total 1`,
		`paysession_kafka_produce_bytes_total`,
		`paysession_kafka_pipeline_fetch_bytes_total`,
		`paysession_pipeline_consumer_lag\{partition="\d+",topic="payments\.commands\.init-payout"\} 0`,
		`paysession_pipeline_transaction_phase_seconds_count\{phase="end"\} [1-9]`,
	} {
		if !regexp.MustCompile(re).Match(body) {
			t.Errorf("/metrics has no line matching %s", re)
		}
	}
	if t.Failed() {
		os.WriteFile(filepath.Join(dir, "metrics.txt"), body, 0o644)
		t.Logf("metrics:\n%s", grepLines(string(body), "paysession_"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
