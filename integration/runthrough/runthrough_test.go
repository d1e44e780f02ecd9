// Package runthrough runs the README's local run-through, command for command, against the
// test broker: the block is read from README.md, so the document and the test cannot drift.
package runthrough

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paysession/paysession/integration/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }

// heading is the README section whose first fenced block is the run-through.
const heading = "## A five-minute local run-through"

// assignment is a line that only sets shell variables (NAME=value or NAME=$(command) ...),
// with an optional comment: the lines whose values the test gives; assigned is one of them.
var (
	assignment = regexp.MustCompile(`^\s*((?:[A-Z_][A-Z0-9_]*=(?:\$\([^)]*\)|[^\s#]+)\s*)+)(#.*)?$`)
	assigned   = regexp.MustCompile(`([A-Z_][A-Z0-9_]*)=(?:\$\([^)]*\)|[^\s#]+)`)
)

// runThrough returns the lines of the first fenced block under heading in readme.
func runThrough(readme string) ([]string, error) {
	i := strings.Index(readme, "\n"+heading+"\n")
	if i < 0 {
		return nil, fmt.Errorf("no %q section", heading)
	}
	rest := readme[i+len(heading)+2:]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	start := strings.Index(rest, "\n```")
	if start < 0 {
		return nil, errors.New("no fenced block in the section")
	}
	rest = rest[start+1:]
	open, body, _ := strings.Cut(rest, "\n")
	if strings.TrimSpace(strings.TrimPrefix(open, "```")) != "sh" {
		return nil, fmt.Errorf("the block opens with %q, not ```sh", open)
	}
	body, _, closed := strings.Cut(body, "\n```")
	if !closed {
		return nil, errors.New("the block is not closed")
	}
	return strings.Split(body, "\n"), nil
}

// withValues returns the block's lines with each assignment of a variable of values given
// that value instead of the block's; it fails unless the block assigns every one of them,
// and only on lines that assign nothing else.
func withValues(lines []string, values map[string]string) ([]string, error) {
	out := make([]string, len(lines))
	given := map[string]bool{}
	for i, line := range lines {
		out[i] = line
		m := assignment.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var words []string
		for _, a := range assigned.FindAllStringSubmatch(m[1], -1) {
			name := a[1]
			value, ok := values[name]
			if !ok {
				return nil, fmt.Errorf("line %q sets %s, which the test does not give", line, name)
			}
			given[name] = true
			words = append(words, name+"="+shellQuote(value))
		}
		out[i] = strings.Join(words, " ")
	}
	for name := range values {
		if !given[name] {
			return nil, fmt.Errorf("the block does not set %s on a line of its own", name)
		}
	}
	return out, nil
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestRunThroughBlockParses(t *testing.T) {
	readme := "# x\n\n" + heading + "\ntext\n\n```sh\nA=$(make -s up) # one\nB=2 # two\nmake build\necho $A\n```\n\n## Next\n```sh\nC=3\n```\n"
	lines, err := runThrough(readme)
	if err != nil {
		t.Fatal(err)
	}
	got, err := withValues(lines, map[string]string{"A": "x y", "B": "it's"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`A='x y'`, `B='it'\''s'`, "make build", "echo $A"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := withValues(lines, map[string]string{"A": "1"}); err == nil {
		t.Error("a line setting a variable the test does not give was accepted")
	}
	if _, err := withValues(lines, map[string]string{"A": "1", "B": "2", "C": "3"}); err == nil {
		t.Error("a variable the block does not set was accepted")
	}
}

// TestReadmeRunThrough runs the README's run-through as one bash script (set -eu, so every
// command must succeed), with the test's broker, free loopback ports, a fresh key folder and a
// fresh idempotency key, and checks that the payout it produced got an accepted result and a
// session state.
func TestReadmeRunThrough(t *testing.T) {
	brokers := harness.Kafka(t)
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines, err := runThrough(string(readme))
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	ports, err := harness.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	suffix := make([]byte, 6)
	if _, err := rand.Read(suffix); err != nil {
		t.Fatal(err)
	}
	key := "runthrough-" + hex.EncodeToString(suffix)
	lines, err = withValues(lines, map[string]string{
		"BROKERS": strings.Join(brokers, ","),
		"SANDBOX": fmt.Sprintf("127.0.0.1:%d", ports[0]),
		"WEBHOOK": fmt.Sprintf("127.0.0.1:%d", ports[1]),
		"OPS":     fmt.Sprintf("127.0.0.1:%d", ports[2]),
		"KEYS":    t.TempDir(),
		"KEY":     key,
	})
	if err != nil {
		t.Fatalf("README.md's run-through: %v", err)
	}
	script := "set -eu\n" + strings.Join(lines, "\n") + "\n"

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = root
	cmd.Env = runEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Its own process group: whatever the script left running is stopped with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	err = cmd.Start()
	if err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	t.Cleanup(func() { _ = harness.StopProcessGroup(pgid, 5*time.Second) })
	err = cmd.Wait()
	if err != nil {
		t.Fatalf("the run-through failed: %v\nscript:\n%s\nstdout:\n%s\nstderr:\n%s", err, script, stdout.String(), stderr.String())
	}

	out := stdout.String()
	var result, state bool
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.Contains(line, `"topic":"payments.command-results"`) && strings.Contains(line, `"key":"`+key+`"`) &&
			strings.Contains(line, `"status":"accepted"`):
			result = true
		case strings.Contains(line, `"topic":"payments.sessions"`) && strings.Contains(line, `"status":`):
			state = true
		}
	}
	if !result || !state {
		t.Errorf("the run-through printed no accepted result of %s (%v) or no session state (%v):\nstdout:\n%s\nstderr:\n%s",
			key, result, state, out, stderr.String())
	}
	if strings.Contains(out, "4111111111111111") || strings.Contains(stderr.String(), "4111111111111111") {
		t.Error("the run-through printed the card number")
	}
}

// runEnv is the test's environment without the PAYSESSION_* variables a developer's shell may
// hold: the run-through sets the ones it needs.
func runEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PAYSESSION_") {
			env = append(env, kv)
		}
	}
	return env
}
