package examples

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/integration/harness/inproc"
)

// TestAsyncAPIDocumentIsValid validates schemas/asyncapi.yaml with the
// official AsyncAPI parser and its Avro schema parser, which resolve every
// payload's .avsc. Warnings fail too.
func TestAsyncAPIDocumentIsValid(t *testing.T) {
	if testing.Short() {
		t.Skip("installs the AsyncAPI parser with npm")
	}
	dir := asyncAPIValidator(t)
	out := run(t, command{name: need(t, "node"), args: []string{filepath.Join(dir, "validate.mjs"), "--strict",
		filepath.Join(root(t), "schemas", "asyncapi.yaml")}, limit: 2 * time.Minute})
	var res struct {
		Valid    bool     `json:"valid"`
		Version  string   `json:"version"`
		Channels []string `json:"channels"`
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || !res.Valid || !strings.HasPrefix(res.Version, "3.0") {
		t.Fatalf("parser output:\n%s", out)
	}
	if len(res.Channels) < 20 {
		t.Fatalf("the parser saw %d channels: %v", len(res.Channels), res.Channels)
	}
}

// TestAsyncAPIValidatorRejectsABrokenDocument: the same validator fails on
// a document whose payload names a missing .avsc and on one whose operation
// names a missing channel, so a broken document fails make test.
func TestAsyncAPIValidatorRejectsABrokenDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("installs the AsyncAPI parser with npm")
	}
	validator := asyncAPIValidator(t)
	doc, err := os.ReadFile(filepath.Join(root(t), "schemas", "asyncapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, from, to, want string }{
		{"missing avsc", "$ref: './capture.avsc'", "$ref: './no-such.avsc'", "no-such.avsc"},
		{"missing channel", "$ref: '#/channels/commandResults'\n", "$ref: '#/channels/noSuchChannel'\n", "noSuchChannel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(string(doc), tt.from) {
				t.Fatalf("the document has no %q to break", tt.from)
			}
			dir := t.TempDir()
			avsc, _ := filepath.Glob(filepath.Join(root(t), "schemas", "*.avsc"))
			for _, f := range avsc {
				copyFile(t, f, filepath.Join(dir, filepath.Base(f)))
			}
			broken := filepath.Join(dir, "asyncapi.yaml")
			if err := os.WriteFile(broken, []byte(strings.Replace(string(doc), tt.from, tt.to, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			out, _, err := start(command{name: need(t, "node"), args: []string{filepath.Join(validator, "validate.mjs"), "--strict", broken}})
			if err == nil || !strings.Contains(out, "INVALID") || !strings.Contains(out, tt.want) {
				t.Fatalf("validator on a broken document: %v\n%s", err, out)
			}
		})
	}
}

// startConnector runs a connector (inproc.Rig: the same code as
// `connector run`) on fresh topics with a sandbox that sends it webhooks,
// until t ends, and waits until it is ready.
func startConnector(t *testing.T, project string, extra map[string]string) *inproc.Rig {
	t.Helper()
	rig := inproc.NewRig(t, inproc.Project(project))
	maps.Copy(rig.Vars, extra)
	rig.Start(t, inproc.LogTo(harness.FailureLog(t, "EXAMPLES_TEST_LOG"))).AwaitReady(t)
	return rig
}

// TestExamples runs every downstream example against two connectors of this
// run: one writing single-object Avro (no registry), one writing the
// Confluent wire format through a real schema registry. Commands come from
// `connector produce`, the Python producer and the Go ledger; each example
// then reads what the connectors made of them and checks the fields.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs connectors, Maven, Python and a second Go module against the broker")
	}
	// Tools and downloads first, so the connectors' clocks start after them.
	bin := connectorBinary(t)
	py := python(t)
	libs := javaLibs(t)
	registry := harness.SchemaRegistry(t)
	schemasDir := filepath.Join(root(t), "schemas")
	run := runID()

	soe := startConnector(t, "ex-soe", nil)
	reg := startConnector(t, "ex-reg", map[string]string{"PAYSESSION_REGISTRY_URL": registry})

	// connector produce: JSON lines in, the configured wire format out.
	cliKeys := []string{"cli-" + run + "-1", "cli-" + run + "-2"}
	lines := fmt.Sprintf(`{"idempotency_key":%q,"amount":11000,"currency":"rub","instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4111111111111111","expiration_month":"12","expiration_year":"29"}}}}
{"idempotency_key":%q,"amount":12000,"currency":"rub","instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4111111111111111","expiration_month":"12","expiration_year":"29"}}}}
`, cliKeys[0], cliKeys[1])
	out := runCLI(t, bin, soe, lines, "produce", "init_payout")
	if strings.Count(out, soe.Topic("INIT_PAYOUT")) != 2 {
		t.Fatalf("connector produce printed:\n%s", out)
	}
	regKey := "cli-" + run + "-reg"
	runCLI(t, bin, reg, strings.Replace(strings.SplitN(lines, "\n", 2)[0], cliKeys[0], regKey, 1)+"\n", "produce", "init_payout")

	// The Python producer writes a single-object command itself.
	pyKey := "py-" + run + "-1"
	runStep(t, command{name: py, args: []string{filepath.Join(root(t), "integration", "examples", "python", "ledger.py"),
		"produce", "--brokers", soe.Vars["PAYSESSION_KAFKA_BROKERS"], "--schemas", schemasDir,
		"--topic", soe.Topic("INIT_PAYOUT"), "--key", pyKey, "--amount", "13000"}})

	// connector tail: the committed results of the three commands, decoded.
	tailed := runCLI(t, bin, soe, "", "tail", "-n", "3", "-timeout", "90s", soe.Topic("COMMAND_RESULTS"))
	checkTail(t, tailed, append(cliKeys, pyKey))

	soeExpect := map[string]int64{cliKeys[0]: 11000, cliKeys[1]: 12000, pyKey: 13000}
	t.Run("go-ledger-module", func(t *testing.T) {
		runStep(t, command{name: need(t, "go"), args: []string{"test", "-count=1", "-v", "-run", "TestLedger", "."},
			dir: filepath.Join(root(t), "integration", "examples", "ledger-go"), env: map[string]string{
				"LEDGER_BROKERS": reg.Vars["PAYSESSION_KAFKA_BROKERS"], "LEDGER_REGISTRY": registry, "LEDGER_RUN": run,
				"LEDGER_TOPIC_INIT_PAYOUT": reg.Topic("INIT_PAYOUT"), "LEDGER_TOPIC_COMMAND_RESULTS": reg.Topic("COMMAND_RESULTS"),
				"LEDGER_TOPIC_SESSIONS": reg.Topic("SESSIONS"), "LEDGER_TOPIC_WEBHOOK_EVENTS": reg.Topic("WEBHOOK_EVENTS")},
			limit: 5 * time.Minute})
	})
	t.Run("python", func(t *testing.T) {
		script := filepath.Join(root(t), "integration", "examples", "python", "ledger.py")
		args := []string{script, "consume", "--brokers", soe.Vars["PAYSESSION_KAFKA_BROKERS"], "--schemas", schemasDir,
			"--results", soe.Topic("COMMAND_RESULTS"), "--sessions", soe.Topic("SESSIONS")}
		for k, a := range soeExpect {
			args = append(args, "--expect", fmt.Sprintf("%s=%d", k, a))
		}
		checkLines(t, "python single-object", runStep(t, command{name: py, args: args}), soeExpect)
		regExpect := map[string]int64{regKey: 11000}
		out := runStep(t, command{name: py, args: []string{script, "consume", "--brokers", reg.Vars["PAYSESSION_KAFKA_BROKERS"],
			"--schemas", schemasDir, "--results", reg.Topic("COMMAND_RESULTS"), "--sessions", reg.Topic("SESSIONS"),
			"--registry", registry, "--expect", regKey + "=11000"}})
		checkLines(t, "python registry", out, regExpect)
	})
	t.Run("java", func(t *testing.T) {
		out := runStep(t, command{name: need(t, "java"), args: []string{"-cp", filepath.Join(libs, "*"),
			filepath.Join(root(t), "integration", "examples", "java", "LedgerConsumer.java")}, env: map[string]string{
			"BROKERS": soe.Vars["PAYSESSION_KAFKA_BROKERS"], "SCHEMAS_DIR": schemasDir, "EXPECT_LAST4": "1111",
			"SOE_TOPIC_COMMAND_RESULTS": soe.Topic("COMMAND_RESULTS"), "SOE_TOPIC_SESSIONS": soe.Topic("SESSIONS"),
			"SOE_EXPECT":                     strings.Join(append(cliKeys, pyKey), ","),
			"APICURIO_URL":                   strings.TrimSuffix(registry, "/apis/ccompat/v7"),
			"REGISTRY_TOPIC_COMMAND_RESULTS": reg.Topic("COMMAND_RESULTS"), "REGISTRY_TOPIC_SESSIONS": reg.Topic("SESSIONS"),
			"REGISTRY_EXPECT": regKey}})
		checkLines(t, "java", out, map[string]int64{cliKeys[0]: 11000, cliKeys[1]: 12000, pyKey: 13000, regKey: 11000})
	})
}

// runCLI runs the connector binary with the variables of c.
func runCLI(t *testing.T, bin string, c *inproc.Rig, stdin string, args ...string) string {
	t.Helper()
	return runStep(t, command{name: bin, args: args, env: c.Vars, stdin: stdin})
}

// runStep is run with the step's output logged, for the record of make test.
func runStep(t *testing.T, c command) string {
	t.Helper()
	out := run(t, c)
	t.Logf("%s %s:\n%s", filepath.Base(c.name), firstArg(c.args), out)
	return out
}

func firstArg(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && !strings.Contains(a, "/") {
			return a
		}
	}
	return ""
}

// checkTail checks the JSON lines of connector tail: one accepted
// init_payout result per key, and no card number.
func checkTail(t *testing.T, out string, keys []string) {
	t.Helper()
	if strings.Contains(out, "4111111111111111") {
		t.Fatal("connector tail printed a full card number")
	}
	got := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var l struct {
			Key, Schema string
			Value       struct {
				Status, Kind string
				SessionID    *string `json:"session_id"`
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("tail line %q: %v", sc.Text(), err)
		}
		if l.Schema != "command_result" || l.Value.Status != "accepted" || l.Value.Kind != "init_payout" || l.Value.SessionID == nil {
			t.Errorf("tail line %s", sc.Text())
		}
		got[l.Key] = true
	}
	for _, k := range keys {
		if !got[k] {
			t.Errorf("connector tail did not print the result of %s:\n%s", k, out)
		}
	}
}

// checkLines checks the per-key JSON lines the Python and Java examples
// print: each expected key accepted, with its amount and the card's last 4
// digits.
func checkLines(t *testing.T, who, out string, want map[string]int64) {
	t.Helper()
	got := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var l struct {
			Key       string `json:"key"`
			Status    string `json:"status"`
			Amount    int64  `json:"amount"`
			CardLast4 string `json:"card_last4"`
			SessionID string `json:"session_id"`
			Error     string `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Key == "" {
			continue
		}
		amount, ok := want[l.Key]
		if !ok || l.Error != "" || l.Status != "accepted" || l.Amount != amount || l.CardLast4 != "1111" || !strings.HasPrefix(l.SessionID, "ps_") {
			t.Errorf("%s: %s", who, sc.Text())
			continue
		}
		got[l.Key] = true
	}
	for k := range want {
		if !got[k] {
			t.Errorf("%s printed nothing for %s:\n%s", who, k, out)
		}
	}
}

func runID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
