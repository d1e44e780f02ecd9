package consumers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paysession/paysession/integration/harness"
)

// Outcome is one record as the Python consumer decoded it.
type Outcome struct {
	Topic     string         `json:"topic"`
	Partition int32          `json:"partition"`
	Offset    int64          `json:"offset"`
	Key       *string        `json:"key"`
	Format    string         `json:"format"` // "confluent" or "single-object"
	Schema    string         `json:"schema"` // schema name, e.g. command_result
	Value     map[string]any `json:"value"`  // fastavro's decoding, bytes in base64, timestamps ISO 8601
}

// ReadConfig says what the Python consumer reads.
type ReadConfig struct {
	Brokers  []string
	Topics   []string
	Count    int           // records to read before returning
	Registry string        // Confluent API address; optional without Confluent-format records
	Timeout  time.Duration // default 90s
}

// ReadOutcomes runs read_outcomes.py (confluent-kafka, read_committed, fastavro with the .avsc
// files of schemas/) and returns the Count records it decoded, failing t with the script's
// output when it does not finish cleanly.
func ReadOutcomes(t testing.TB, cfg ReadConfig) []Outcome {
	t.Helper()
	python := Python(t)
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 90 * time.Second
	}
	args := []string{filepath.Join(Dir(t), "read_outcomes.py"),
		"--brokers", strings.Join(cfg.Brokers, ","), "--schemas", filepath.Join(root, "schemas"),
		"--count", fmt.Sprint(cfg.Count), "--timeout", fmt.Sprint(cfg.Timeout.Seconds())}
	for _, topic := range cfg.Topics {
		args = append(args, "--topic", topic)
	}
	if cfg.Registry != "" {
		args = append(args, "--registry", cfg.Registry)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python consumer: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}
	var out []Outcome
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var o Outcome
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatalf("python consumer printed %q: %v", sc.Text(), err)
		}
		out = append(out, o)
	}
	return out
}
