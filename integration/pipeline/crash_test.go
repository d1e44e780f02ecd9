package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/paysession/paysession/connector/pipeline"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/paysim"
	"github.com/paysession/paysession/internal/signing"
)

// childEnv carries the crash test's child configuration (JSON).
const childEnv = "PIPELINE_CRASH_CHILD"

// childReady is the line a child prints once it handles SIGTERM.
const childReady = "pipeline child ready"

// childConfig is what the child process needs to run a pipeline.
type childConfig struct {
	Seeds   []string        `json:"seeds"`
	Topics  pipeline.Topics `json:"topics"`
	APIURL  string          `json:"api_url"`
	KeyPath string          `json:"key_path"`
	ID      string          `json:"id"`
}

// runChild is the helper process: it runs the pipeline until SIGTERM (or
// until it is killed).
func runChild() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	fmt.Fprintln(os.Stderr, childReady) // the parent may send SIGTERM from now on
	var cc childConfig
	if err := json.Unmarshal([]byte(os.Getenv(childEnv)), &cc); err != nil {
		fmt.Fprintln(os.Stderr, "child config:", err)
		return 2
	}
	key, err := signing.LoadPrivateKey(cc.KeyPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child key:", err)
		return 2
	}
	api, err := payapi.New(payapi.Config{BaseURL: cc.APIURL, Project: project, Signer: signing.NewRSASigner(key, signing.PKCS1v15)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child api:", err)
		return 2
	}
	e := &env{seeds: cc.Seeds, topics: cc.Topics, id: cc.ID}
	cfg := e.config()
	cfg.API = api
	cfg.Logger = testLogger()
	p, err := pipeline.New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child pipeline:", err)
		return 2
	}
	if err := p.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "child run:", err)
		return 1
	}
	return 0
}

// TestCrash kills the pipeline process with SIGKILL at random (seeded)
// moments while commands flow, restarting it each time, then checks that
// every command has exactly one result and the sandbox executed nothing
// twice and missed nothing.
func TestCrash(t *testing.T) {
	n := envInt("PIPELINE_CRASH_COMMANDS", 2000)
	kills := envInt("PIPELINE_CRASH_KILLS", 10)
	seed := uint64(envInt("PIPELINE_CRASH_SEED", 1))
	rng := rand.New(rand.NewPCG(seed, seed))
	e := newEnv(t, envOptions{kinds: []codec.CommandKind{codec.KindInitPayment}, partitions: 2,
		faults: paysim.Faults{Latency: 100 * time.Millisecond, LatencyJitter: 300 * time.Millisecond}})
	partner, _ := testKeys(t)
	dir := t.TempDir()
	keyPath := filepath.Join(dir, "partner.pem")
	if err := signing.WriteKeyPair(partner, keyPath, filepath.Join(dir, "partner.pub")); err != nil {
		t.Fatal(err)
	}
	cc, _ := json.Marshal(childConfig{Seeds: e.seeds, Topics: e.topics, APIURL: e.url, KeyPath: keyPath, ID: e.id})

	// Commands flow during the kills: produced at a steady pace, 50 every
	// 600 ms (2,000 in about 24 s).
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("crash-%s-%05d", e.id, i)
	}
	go func() {
		for i := range n {
			r := e.command(codec.KindInitPayment, keys[i], initPaymentJSON(cardSuccess, 1000+i))
			e.cl.Produce(context.Background(), r, nil)
			if i%50 == 49 {
				time.Sleep(600 * time.Millisecond)
			}
		}
	}()
	start := time.Now()
	for i := range kills {
		child := startChild(t, string(cc), dir, i)
		time.Sleep(time.Duration(500+rng.IntN(2500)) * time.Millisecond) // a random kill moment
		_ = child.Process.Signal(syscall.SIGKILL)
		_ = child.Wait()
		t.Logf("kill %d at %v: %d results so far", i+1, time.Since(start).Round(time.Millisecond), e.out.totalNow())
	}
	child := startChild(t, string(cc), dir, kills)
	e.out.count(t, n, 3*time.Minute)
	harness.Eventually(t, 30*time.Second, "final child ready", func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("child-%d.log", kills)))
		return bytes.Contains(b, []byte(childReady))
	})
	_ = child.Process.Signal(syscall.SIGTERM)
	if err := child.Wait(); err != nil {
		t.Errorf("final child: %v", err)
	}
	replayed := 0
	for _, k := range keys {
		if e.proxy.requests(k) > 1 {
			replayed++
		}
	}
	t.Logf("%d commands, %d kills: all results after %v; %d commands were sent more than once (replays after kills)",
		n, kills, time.Since(start).Round(time.Millisecond), replayed)
	e.checkExactlyOnce(t, keys)
}

func startChild(t *testing.T, cfg, dir string, i int) *exec.Cmd {
	t.Helper()
	logPath := filepath.Join(dir, fmt.Sprintf("child-%d.log", i))
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+cfg)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("child %d log tail:\n%s", i, tail(b, 2000))
		}
	})
	return cmd
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return bytes.TrimSpace(b)
}

// checkExactlyOnce asserts one accepted result per key, and that the sandbox
// executed each command exactly once (one session per key, none extra).
func (e *env) checkExactlyOnce(t *testing.T, keys []string) {
	t.Helper()
	e.out.mu.Lock()
	defer e.out.mu.Unlock()
	sessions := map[string]string{}
	for _, k := range keys {
		rs := e.out.results[k]
		if len(rs) != 1 {
			t.Errorf("%s: %d results, want exactly 1", k, len(rs))
			continue
		}
		if rs[0].Status != codec.StatusAccepted || rs[0].SessionID == nil {
			t.Errorf("%s: %s %s", k, rs[0].Status, deref(rs[0].ErrorCode))
			continue
		}
		if other, dup := sessions[*rs[0].SessionID]; dup {
			t.Errorf("session %s returned for %s and %s", *rs[0].SessionID, k, other)
		}
		sessions[*rs[0].SessionID] = k
	}
	if len(e.out.results) != len(keys) {
		t.Errorf("%d keys have results, want %d", len(e.out.results), len(keys))
	}
	e.checkLedger(t, keys)
}

// checkLedger asserts, from the sandbox's own records, that every command
// executed exactly once (idempotent replays are not executions) and moved
// money once.
func (e *env) checkLedger(t *testing.T, keys []string) {
	t.Helper()
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	execs, _ := e.sim.Executions("")
	perKey := map[string]int{}
	for _, x := range execs {
		if want[x.IdempotencyKey] {
			perKey[x.IdempotencyKey]++
		}
	}
	for _, k := range keys {
		if perKey[k] != 1 {
			t.Errorf("%s executed %d times, want 1", k, perKey[k])
		}
	}
	perOp := map[string]int{}
	for _, l := range e.sim.Ledger("") {
		if l.Kind == "payment" {
			perOp[l.OperationID]++
		}
	}
	for op, n := range perOp {
		if n != 1 {
			t.Errorf("operation %s moved money %d times", op, n)
		}
	}
	if len(perOp) != len(keys) {
		t.Errorf("%d payments in the ledger, want %d", len(perOp), len(keys))
	}
}
