package paysim

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

func countKind(entries []LedgerEntry, kind string) int {
	n := 0
	for _, e := range entries {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// TestIdempotency covers the spec's Idempotency rules 1-2 and the three
// idempotency error codes.
func TestIdempotency(t *testing.T) {
	t.Run("same request twice executes once", func(t *testing.T) {
		e := newEnv(t, nil)
		a := e.call("v1", "session/init/payout", payoutBody("v1", CardSuccess, 5000), "key-twice")
		e.idle()
		b := e.call("v1", "session/init/payout", payoutBody("v1", CardSuccess, 5000), "key-twice")
		e.idle()
		if a.Status != 200 || !bytes.Equal(a.Raw, b.Raw) {
			t.Fatalf("replay differs:\n%s\n%s", a.Raw, b.Raw)
		}
		if n := countKind(e.srv.Ledger(""), "payout"); n != 1 {
			t.Fatalf("payout ledger entries = %d, want 1", n)
		}
		if ex, _ := e.srv.Executions(""); len(ex) != 1 {
			t.Fatalf("executions = %d, want 1", len(ex))
		}
	})
	t.Run("other params mismatch", func(t *testing.T) {
		e := newEnv(t, nil)
		e.call("v1", "session/init/payout", payoutBody("v1", CardSuccess, 5000), "key-mismatch")
		r := e.call("v1", "session/init/payout", payoutBody("v1", CardSuccess, 5001), "key-mismatch")
		if r.Status != 409 || r.code() != "idempotency_key_params_mismatch headers.X-PARTNER-IDEMPOTENCY-KEY.params_mismatch" {
			t.Fatalf("got %d %s", r.Status, r.code())
		}
	})
	t.Run("concurrent same key already exists", func(t *testing.T) {
		e := newEnv(t, nil)
		e.srv.SetFaults(Faults{Latency: 300 * time.Millisecond})
		var wg sync.WaitGroup
		res := make([]resp, 2)
		for i := range res {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i == 1 {
					time.Sleep(50 * time.Millisecond) // start second while first sleeps in its latency
				}
				res[i] = e.call("v1", "session/init/payout", payoutBody("v1", CardSuccess, 5000), "key-concurrent")
			}()
		}
		wg.Wait()
		if res[0].Status != 200 || res[1].Status != 409 || res[1].code() != "idempotency_key_already_exists headers.X-PARTNER-IDEMPOTENCY-KEY.in_progress" {
			t.Fatalf("got %d %s / %d %s", res[0].Status, res[0].code(), res[1].Status, res[1].code())
		}
	})
	t.Run("after 24h executes anew", func(t *testing.T) {
		e := newEnv(t, nil)
		a := e.call("v1", "session/init/payout", payoutBody("v1", CardSuccess, 5000), "key-expiry")
		e.srv.Advance(IdempotencyTTL)
		b := e.call("v1", "session/init/payout", payoutBody("v1", CardSuccess, 5000), "key-expiry")
		e.idle()
		if a.session()["id"] == b.session()["id"] {
			t.Fatal("same session after key expiry")
		}
		if n := countKind(e.srv.Ledger(""), "payout"); n != 2 {
			t.Fatalf("payouts = %d, want 2", n)
		}
		if n := e.srv.idem.Len(); n != 1 {
			t.Fatalf("keys kept = %d, want 1 (expired one evicted)", n)
		}
	})
	t.Run("unsupported methods", func(t *testing.T) {
		e := newEnv(t, nil)
		for _, m := range []string{"session/status", "fps/banks", "token/info", "wallet/balance"} {
			r := e.call("v1", m, map[string]any{"session_id": "ps_1"}, "key-unsupported")
			if r.Status != 400 || r.code() != "idempotency_key_not_supported headers.X-PARTNER-IDEMPOTENCY-KEY.not_supported" {
				t.Fatalf("%s: got %d %s", m, r.Status, r.code())
			}
		}
	})
}
