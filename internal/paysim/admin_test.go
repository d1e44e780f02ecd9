package paysim

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func (e *env) admin(method, path, body string) map[string]any {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.http.URL+path, bytes.NewReader([]byte(body)))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || res.StatusCode != 200 {
		e.t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	return m
}

func TestAdminEndpoints(t *testing.T) {
	e := newEnv(t, nil)
	before := e.srv.Now()
	now := e.admin("POST", "/admin/clock/advance", `{"seconds":3600}`)["now"].(string)
	if now != formatTime(before.Add(time.Hour)) {
		t.Fatalf("clock: %s", now)
	}
	f := e.admin("POST", "/admin/faults", `{"latency_ms":5,"latency_jitter_ms":2,"error_rate":0.5,"drop_rate":0.25,"webhook_refuse":true}`)
	if f["latency_ms"].(float64) != 5 || f["webhook_refuse"].(float64) != 1 || e.srv.Faults().DropRate != 0.25 {
		t.Fatalf("faults: %v", f)
	}
	e.admin("POST", "/admin/faults", `{}`)
	s := e.call("v1", "session/init/payment", paymentBody(CardSuccess, 100), "").session()
	e.admin("POST", "/admin/wait-idle", "")
	if got := e.admin("GET", "/admin/ledger?session_id="+s["id"].(string), "")["entries"].([]any); len(got) != 1 {
		t.Fatalf("ledger: %v", got)
	}
	if got := e.admin("GET", "/admin/webhooks", "")["deliveries"].([]any); len(got) != 1 {
		t.Fatalf("webhooks: %v", got)
	}
	e.admin("POST", "/admin/chargeback", `{"session_id":"`+s["id"].(string)+`","amount":40}`)
	ex := e.admin("GET", "/admin/executions?session_id="+s["id"].(string), "")
	if len(ex["executions"].([]any)) != 1 || ex["max_in_flight"].(float64) != 1 {
		t.Fatalf("executions: %v", ex)
	}
	e.admin("POST", "/admin/reset", "")
	if len(e.srv.Ledger("")) != 0 || e.status(s["id"].(string)) != nil {
		t.Fatal("reset kept state")
	}
}

// TestFaultKnobs: error_rate answers 500 without executing; drop_rate
// executes and then closes the connection.
func TestFaultKnobs(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.SetFaults(Faults{ErrorRate: 1})
	r := e.call("v1", "session/init/payout", payoutBody("v1", CardSuccess, 100), "k-error")
	if r.Status != 500 || r.code() != "internal_error internal error" {
		t.Fatalf("got %d %s", r.Status, r.code())
	}
	if ex, _ := e.srv.Executions(""); len(ex) != 0 {
		t.Fatal("error fault executed the call")
	}
	e.srv.SetFaults(Faults{DropRate: 1})
	raw, _ := json.Marshal(payoutBody("v1", CardSuccess, 100))
	sig, _ := e.sign.Sign(raw)
	req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/api/v1/session/init/payout", bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderProject, "dev")
	req.Header.Set(HeaderSign, sig)
	req.Header.Set(HeaderIdempotency, "k-drop")
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
		t.Fatal("dropped call got a response")
	}
	e.idle()
	if n := countKind(e.srv.Ledger(""), "payout"); n != 1 {
		t.Fatalf("dropped call executed %d times", n)
	}
	e.srv.SetFaults(Faults{})
	if r := e.call("v1", "session/init/payout", payoutBody("v1", CardSuccess, 100), "k-drop"); r.Status != 200 || r.Body["session"] == nil {
		t.Fatalf("replay after drop: %d %s", r.Status, r.code())
	}
	e.idle()
	if n := countKind(e.srv.Ledger(""), "payout"); n != 1 {
		t.Fatalf("replay executed again: %d", n)
	}
}

// TestExecutionsRecordOrderAndOverlap: per-session order and the most calls
// in flight at once (the pipeline's ordering test reads these).
func TestExecutionsRecordOrderAndOverlap(t *testing.T) {
	e := newEnv(t, nil)
	s := e.call("v1", "session/init/payment", paymentBody(CardHold, 100), "").session()
	id := s["id"].(string)
	e.idle()
	e.srv.SetFaults(Faults{Latency: 100 * time.Millisecond})
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() { defer wg.Done(); e.call("v1", "session/status", map[string]any{"session_id": id}, "") }()
	}
	wg.Wait()
	ex, peak := e.srv.Executions(id)
	if len(ex) != 4 || ex[0].Method != "session/init/payment" || peak < 2 {
		t.Fatalf("executions %d, first %s, peak %d", len(ex), ex[0].Method, peak)
	}
}

func TestLatencyDistribution(t *testing.T) {
	d := newDice(7)
	f := Faults{Latency: 10 * time.Millisecond, LatencyJitter: 5 * time.Millisecond}
	for range 100 {
		if l := f.latency(d); l < 10*time.Millisecond || l > 15*time.Millisecond {
			t.Fatalf("uniform latency %v", l)
		}
	}
	f.LatencyDistribution = "exponential"
	for range 100 {
		if l := f.latency(d); l < 10*time.Millisecond || l > 60*time.Millisecond {
			t.Fatalf("exponential latency %v", l)
		}
	}
	if err := (Faults{ErrorRate: 2}).validate(); err == nil {
		t.Fatal("rate 2 accepted")
	}
}

func TestRecurringTokensOfSession(t *testing.T) {
	e := newEnv(t, nil)
	if got := e.srv.RecurringTokens("ps_missing"); got != nil {
		t.Fatalf("unknown session: %v", got)
	}
	r := e.call("v1", "session/init/payment", paymentBody("4111111111111111", 1000), "tok-key-1")
	id, _ := r.session()["id"].(string)
	e.idle()
	got := e.srv.RecurringTokens(id)
	if len(got) != 1 || !strings.HasPrefix(got[0], "rt_") {
		t.Fatalf("RecurringTokens(%s) = %v, want one rt_ token", id, got)
	}
}
