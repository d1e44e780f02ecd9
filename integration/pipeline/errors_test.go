package pipeline_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
)

// TestErrorClasses drives one command per error class through Kafka.
func TestErrorClasses(t *testing.T) {
	e := newEnv(t, envOptions{kinds: []codec.CommandKind{codec.KindCapture, codec.KindRefund}})
	e.start(t, nil)
	capture := func(sessionID string) string { return fmt.Sprintf(`{"session_id":%q}`, sessionID) }

	t.Run("invalid json", func(t *testing.T) {
		k := key("badjson")
		e.produce(t, e.command(codec.KindCapture, k, `{"session_id":`))
		res := e.out.result(t, k, 30*time.Second)
		e.wantInvalid(t, res, k)
	})
	t.Run("unknown field", func(t *testing.T) {
		k := key("unknown")
		e.produce(t, e.command(codec.KindCapture, k, `{"session_id":"ps_1","colour":"red"}`))
		res := e.out.result(t, k, 30*time.Second)
		e.wantInvalid(t, res, k)
		if !strings.Contains(deref(res.ErrorField)+deref(res.ErrorDescription), "colour") {
			t.Errorf("the unknown field is not named: %s / %s", deref(res.ErrorField), deref(res.ErrorDescription))
		}
	})
	t.Run("bad key", func(t *testing.T) {
		k := "ab" // shorter than 4
		rec := e.command(codec.KindCapture, k, capture("ps_1"))
		e.produce(t, rec)
		published := codec.OutcomeKeyAt(k, codec.Position{Topic: rec.Topic, Partition: rec.Partition, Offset: rec.Offset}) // an invalid key is published as its position (ProduceSync filled it in)
		if published == k {
			t.Fatalf("OutcomeKeyAt(%q) = the key itself", k)
		}
		res := e.out.result(t, published, 30*time.Second)
		e.wantInvalid(t, res, published)
		if deref(res.ErrorField) != "key" {
			t.Errorf("error field = %q, want key", deref(res.ErrorField))
		}
	})
	t.Run("expired", func(t *testing.T) {
		k := key("expired")
		r := e.command(codec.KindCapture, k, capture(e.initPayment(t, cardHold).ID))
		r.Timestamp = time.Now().Add(-23*time.Hour - 30*time.Minute)
		e.produce(t, r)
		res := e.out.result(t, k, 30*time.Second)
		if res.Status != codec.StatusExpired || res.Attempts != 0 || e.proxy.requests(k) != 0 {
			t.Fatalf("result %s attempts %d, requests %d: want expired and never sent", res.Status, res.Attempts, e.proxy.requests(k))
		}
	})
	t.Run("params mismatch", func(t *testing.T) {
		k := key("reused")
		e.produce(t, e.command(codec.KindCapture, k, capture(e.initPayment(t, cardHold).ID)))
		if res := e.out.result(t, k, 30*time.Second); res.Status != codec.StatusAccepted {
			t.Fatalf("first use: %s %s", res.Status, deref(res.ErrorCode))
		}
		e.produce(t, e.command(codec.KindCapture, k, capture(e.initPayment(t, cardHold).ID)))
		var second codec.CommandResult
		e.out.wait(t, 30*time.Second, "second result of "+k, func() bool {
			if rs := e.out.results[k]; len(rs) == 2 {
				second = rs[1]
				return true
			}
			return false
		})
		if second.Status != codec.StatusRejected || deref(second.ErrorCode) != "idempotency_key_params_mismatch" {
			t.Fatalf("reused key: %s %s", second.Status, deref(second.ErrorCode))
		}
	})
	t.Run("5xx then success", func(t *testing.T) {
		k := key("flaky")
		e.proxy.fail(k, 2)
		e.produce(t, e.command(codec.KindCapture, k, capture(e.initPayment(t, cardHold).ID)))
		res := e.out.result(t, k, 30*time.Second)
		if res.Status != codec.StatusAccepted || res.Attempts != 3 {
			t.Fatalf("result %s after %d attempts, want accepted after 3", res.Status, res.Attempts)
		}
	})
	t.Run("retries exhausted", func(t *testing.T) {
		k := key("down")
		e.proxy.fail(k, -1)
		sess := e.initPayment(t, cardHold)
		e.produce(t, e.command(codec.KindCapture, k, capture(sess.ID)))
		res := e.out.result(t, k, 30*time.Second)
		if res.Status != codec.StatusIndeterminate || res.Attempts != 4 {
			t.Fatalf("result %s after %d attempts, want indeterminate after 4", res.Status, res.Attempts)
		}
		e.out.wait(t, 10*time.Second, "settling status of "+sess.ID, func() bool {
			for _, st := range e.out.sessions[sess.ID] {
				if st.Source == codec.SourcePoll {
					return true
				}
			}
			return false
		})
	})
}

// wantInvalid checks an invalid result and its dead letter.
func (e *env) wantInvalid(t *testing.T, res codec.CommandResult, k string) {
	t.Helper()
	if res.Status != codec.StatusInvalid || res.Attempts != 0 || e.proxy.requests(k) != 0 {
		t.Fatalf("result %s (%s) attempts %d: want invalid, never sent", res.Status, deref(res.ErrorDescription), res.Attempts)
	}
	var dl []*kgo.Record
	e.out.wait(t, 10*time.Second, "dead letter of "+k, func() bool { dl = e.out.dead[k]; return len(dl) > 0 })
	if len(dl) != 1 {
		t.Fatalf("%d dead letters", len(dl))
	}
	var code string
	for _, h := range dl[0].Headers {
		if h.Key == "paysession-error-code" {
			code = string(h.Value)
		}
	}
	if code == "" {
		t.Errorf("dead letter has no error headers")
	}
}
