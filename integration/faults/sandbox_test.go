package faults_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/paysim"
)

// Sandbox is a paysim process in dev mode and a client of its admin
// endpoints: the ledger side of the oracle.
type Sandbox struct {
	*Process
	URL     string // base URL, e.g. http://127.0.0.1:41234
	KeysDir string // partner_private.pem, service_public.pem, ...
	Project string
}

// SandboxOptions configure StartSandbox. Flags are extra paysim flags
// (faults: -error-rate, -drop-rate, -latency, -webhook-refuse, ...).
type SandboxOptions struct {
	WebhookURL string   // dev project's webhook URL ("" = no webhooks)
	Flags      []string // extra paysim flags
}

// StartSandbox starts paysim -dev-keys on a free loopback port and waits
// for its /healthz.
func StartSandbox(t testing.TB, o SandboxOptions) *Sandbox {
	t.Helper()
	s := &Sandbox{KeysDir: t.TempDir(), Project: "faults"}
	addr := freeAddr(t)
	s.URL = "http://" + addr
	args := []string{"-dev-keys", s.KeysDir, "-listen", addr, "-project", s.Project,
		"-log-level", "warn", "-webhook-url", o.WebhookURL}
	s.Process = StartProcess(t, "paysim", binary(t, "paysim"), append(args, o.Flags...), nil)
	awaitHTTP(t, s.Process, s.URL+"/healthz", 60*time.Second)
	return s
}

// Executions returns every call the sandbox executed (idempotent replays
// are not executions).
func (s *Sandbox) Executions(t testing.TB) []paysim.Execution {
	var v struct {
		Executions []paysim.Execution `json:"executions"`
	}
	s.get(t, "/admin/executions", &v)
	return v.Executions
}

// Ledger returns every money movement.
func (s *Sandbox) Ledger(t testing.TB) []paysim.LedgerEntry {
	var v struct {
		Entries []paysim.LedgerEntry `json:"entries"`
	}
	s.get(t, "/admin/ledger", &v)
	return v.Entries
}

// Webhooks returns every webhook the sandbox sent or is sending.
func (s *Sandbox) Webhooks(t testing.TB) []paysim.WebhookDelivery {
	var v struct {
		Deliveries []paysim.WebhookDelivery `json:"deliveries"`
	}
	s.get(t, "/admin/webhooks", &v)
	return v.Deliveries
}

// WaitIdle returns when the sandbox's background work (asynchronous
// processing, due webhooks) is done.
func (s *Sandbox) WaitIdle(t testing.TB) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/admin/wait-idle?timeout_ms=60000", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("paysim wait-idle: %v", err)
	}
	resp.Body.Close()
}

func (s *Sandbox) get(t testing.TB, path string, v any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("paysim GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("paysim GET %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("paysim GET %s: %v", path, err)
	}
}

// awaitHTTP polls url until it answers 200, failing t when p exits or
// timeout passes.
func awaitHTTP(t testing.TB, p *Process, url string, timeout time.Duration) {
	t.Helper()
	client := &http.Client{Timeout: 3 * time.Second}
	deadline := time.Now().Add(timeout)
	last := "no answer"
	for {
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		if !p.Running() {
			t.Fatalf("%s exited before %s answered\n%s", p.name, url, p.Tail(40))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s not ready after %v: %s\n%s", p.name, url, timeout, last, p.Tail(40))
		}
		time.Sleep(50 * time.Millisecond) // polling another process: there is no signal to await
	}
}
