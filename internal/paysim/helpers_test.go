package paysim

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/signing"
)

var (
	keyOnce               sync.Once
	partnerKey, serviceKy *rsa.PrivateKey
)

// testKeys generates the partner and service keys once per test binary.
func testKeys(t testing.TB) (*rsa.PrivateKey, *rsa.PrivateKey) {
	keyOnce.Do(func() {
		var err error
		if partnerKey, err = signing.GenerateKey(2048); err != nil {
			panic(err)
		}
		if serviceKy, err = signing.GenerateKey(2048); err != nil {
			panic(err)
		}
	})
	return partnerKey, serviceKy
}

// receiver records webhooks and answers with status() (200 by default).
type receiver struct {
	mu     sync.Mutex
	got    []map[string]any
	bodies [][]byte
	sigs   []string
	status int
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	r.mu.Lock()
	r.got = append(r.got, m)
	r.bodies = append(r.bodies, b)
	r.sigs = append(r.sigs, req.Header.Get(HeaderSign))
	st := r.status
	r.mu.Unlock()
	if st == 0 {
		st = http.StatusOK
	}
	w.WriteHeader(st)
}

func (r *receiver) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, m := range r.got {
		out = append(out, m["type"].(string))
	}
	return out
}

type env struct {
	t     testing.TB
	srv   *Server
	http  *httptest.Server
	hooks *receiver
	sign  *signing.RSASigner
	clock *FakeClock
}

func newEnv(t testing.TB, mutate func(*Config)) *env {
	t.Helper()
	pk, sk := testKeys(t)
	e := &env{t: t, hooks: &receiver{}, sign: signing.NewRSASigner(pk, signing.PKCS1v15),
		clock: NewFakeClock(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))}
	hookSrv := httptest.NewServer(e.hooks)
	t.Cleanup(hookSrv.Close)
	cfg := Config{Clock: e.clock, ServiceKey: sk, ProcessingDelay: time.Millisecond,
		Projects: []Project{DevProject("dev", &pk.PublicKey, hookSrv.URL)}}
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatalf("new: %v", err)
	}
	e.srv = srv
	e.http = httptest.NewServer(srv.Handler())
	t.Cleanup(func() { e.http.Close(); srv.Close() })
	return e
}

type resp struct {
	Status int
	Body   map[string]any
	Raw    []byte
}

func (r resp) code() string {
	if e, ok := r.Body["error"].(map[string]any); ok {
		return e["code"].(string) + " " + e["description"].(string)
	}
	return "ok"
}

func (r resp) session() map[string]any { m, _ := r.Body["session"].(map[string]any); return m }

func (e *env) call(version, method string, body any, key string) resp {
	e.t.Helper()
	h := map[string]string{}
	if key != "" {
		h[HeaderIdempotency] = key
	}
	return e.callWith(version, method, body, h)
}

func (e *env) callWith(version, method string, body any, headers map[string]string) resp {
	e.t.Helper()
	raw, _ := json.Marshal(body)
	sig, _ := e.sign.Sign(raw)
	req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/api/"+version+"/"+method, bytes.NewReader(raw))
	if method == "fps/banks" {
		req.Method = http.MethodGet
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderProject, "dev")
	req.Header.Set(HeaderSign, sig)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return e.do(req)
}

func (e *env) do(req *http.Request) resp {
	e.t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("%s: %v", req.URL.Path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	r := resp{Status: res.StatusCode, Raw: b}
	if err := json.Unmarshal(b, &r.Body); err != nil {
		e.t.Fatalf("%s: body %q: %v", req.URL.Path, b, err)
	}
	return r
}

func (e *env) idle() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := e.srv.WaitIdle(ctx); err != nil {
		e.t.Fatalf("wait idle: %v", err)
	}
}

func (e *env) status(id string) map[string]any {
	e.t.Helper()
	return e.call("v1", "session/status", map[string]any{"session_id": id}, "").session()
}

func card(number string) map[string]any {
	return map[string]any{"type": "card", "card": map[string]any{"type": "bank_card", "bank_card": map[string]any{
		"number": number, "expiration_month": "12", "expiration_year": "29", "security_code": "123"}}}
}

func paymentBody(number string, value int64) map[string]any {
	return map[string]any{"payment_details": card(number), "amount_details": map[string]any{"amount": value, "currency": "rub"},
		"customer": map[string]any{"reference": "c-1"}}
}

func payoutBody(version string, number string, value int64) map[string]any {
	name := "payment_method"
	if version == "v2" {
		name = "payout_details"
	}
	return map[string]any{name: card(number), "amount_details": map[string]any{"amount": value, "currency": "rub"}}
}

// op returns the first operation of a session in any array.
func op(sess map[string]any) map[string]any {
	for _, k := range []string{"payments", "payout_list", "acquiring_payments", "payment_list"} {
		if a, ok := sess[k].([]any); ok && len(a) > 0 {
			return a[0].(map[string]any)
		}
	}
	return nil
}
