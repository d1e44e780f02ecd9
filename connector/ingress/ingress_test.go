package ingress

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/signing"
)

const updatesTopic = "payments.sessions.updates"

type fixture struct {
	in   *Ingress
	api  *fakeAPI
	prod *fakeProducer
	reg  *prometheus.Registry
	key  *rsa.PrivateKey
}

func newFixture(t *testing.T, mutate func(*Config)) *fixture {
	t.Helper()
	cur, prev, _ := testKeys(t)
	f := &fixture{prod: &fakeProducer{mode: "ok"}, api: &fakeAPI{everywhere: true}, reg: prometheus.NewRegistry(), key: cur}
	cfg := Config{
		Verifier:       signing.NewRSAVerifier(signing.PKCS1v15, &cur.PublicKey, &prev.PublicKey),
		API:            f.api,
		Producer:       f.prod,
		Encoder:        jsonEncoder{},
		MaxBodyBytes:   4096,
		PublishTimeout: 200 * time.Millisecond,
		Registerer:     f.reg,
		Logger:         slog.New(slog.DiscardHandler),
	}
	if mutate != nil {
		mutate(&cfg)
	}
	var err error
	if f.in, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.prod.release(); _ = f.in.Shutdown(context.Background()) })
	return f
}

// body returns a v1 webhook for session id at updated_at t0+sec.
func body(typ, id, status string, sec int) []byte {
	upd := time.Date(2026, 11, 23, 10, 0, sec, 0, time.UTC).Format("2006-01-02T15:04:05.000000Z")
	return []byte(fmt.Sprintf(`{"type":%q,"session":{"id":%q,"status":%q,"created_at":"2026-11-23T10:00:00.000000Z",`+
		`"updated_at":%q,"payments":[{"id":"po_1","status":"in_progress","amount_details":{"amount":1000,"currency":"rub"}}],"added":1}}`,
		typ, id, status, upd))
}

func sign(t testing.TB, k *rsa.PrivateKey, b []byte) string {
	t.Helper()
	s, err := signing.NewRSASigner(k, signing.PKCS1v15).Sign(b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (f *fixture) post(t *testing.T, b []byte, sig string) int {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/webhooks", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if sig != "" {
		req.Header.Set("X-PARTNER-SIGN", sig)
	}
	rec := httptest.NewRecorder()
	f.in.ServeHTTP(rec, req)
	return rec.Code
}

func TestRejectsPublishNothing(t *testing.T) {
	cur, prev, forger := testKeys(t)
	good := body("payment_finished", "ps_1", "accepted", 5)
	tests := []struct {
		name   string
		method string
		path   string
		ctype  string
		body   []byte
		sig    func(t *testing.T) string
		want   int
	}{
		{"get", http.MethodGet, "/webhooks", "application/json", good, nil, 405},
		{"wrong path", http.MethodPost, "/other", "application/json", good, nil, 404},
		{"text content type", http.MethodPost, "/webhooks", "text/plain", good, nil, 415},
		{"no content type", http.MethodPost, "/webhooks", "", good, nil, 415},
		{"oversized", http.MethodPost, "/webhooks", "application/json", bytes.Repeat([]byte(" "), 5000), func(t *testing.T) string { return sign(t, cur, good) }, 413},
		{"oversized, unsigned", http.MethodPost, "/webhooks", "application/json", bytes.Repeat([]byte(" "), 5000), nil, 401},
		{"unsigned", http.MethodPost, "/webhooks", "application/json", good, nil, 401},
		{"forged", http.MethodPost, "/webhooks", "application/json", good, func(t *testing.T) string { return sign(t, forger, good) }, 401},
		{"tampered", http.MethodPost, "/webhooks", "application/json", bytes.Replace(good, []byte("1000"), []byte("9000"), 1),
			func(t *testing.T) string { return sign(t, cur, good) }, 401},
		{"garbage signature", http.MethodPost, "/webhooks", "application/json", good, func(*testing.T) string { return "!!notbase64" }, 401},
		{"malformed json", http.MethodPost, "/webhooks", "application/json", []byte(`{"type":`), sigOf(cur, []byte(`{"type":`)), 400},
		{"missing type", http.MethodPost, "/webhooks", "application/json", []byte(`{"session":{"id":"ps_1"}}`), sigOf(cur, []byte(`{"session":{"id":"ps_1"}}`)), 400},
		{"missing session", http.MethodPost, "/webhooks", "application/json", []byte(`{"type":"payment_finished"}`), sigOf(cur, []byte(`{"type":"payment_finished"}`)), 400},
		{"missing session id", http.MethodPost, "/webhooks", "application/json", []byte(`{"type":"x","session":{"status":"accepted"}}`), sigOf(cur, []byte(`{"type":"x","session":{"status":"accepted"}}`)), 400},
		{"mixed versions", http.MethodPost, "/webhooks", "application/json", []byte(`{"type":"x","session":{"id":"ps_1","payments":[],"payment_list":[]}}`), sigOf(prev, []byte(`{"type":"x","session":{"id":"ps_1","payments":[],"payment_list":[]}}`)), 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			req := httptest.NewRequest(tc.method, tc.path, bytes.NewReader(tc.body))
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			if tc.sig != nil {
				req.Header.Set("X-PARTNER-SIGN", tc.sig(t))
			}
			rec := httptest.NewRecorder()
			f.in.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Fatalf("status = %d, want %d", rec.Code, tc.want)
			}
			if f.prod.produced != 0 {
				t.Fatalf("produced %d records, want none", f.prod.produced)
			}
		})
	}
}

func sigOf(k *rsa.PrivateKey, b []byte) func(t *testing.T) string {
	return func(t *testing.T) string { return sign(t, k, b) }
}

func TestAcceptPublishesEventAndState(t *testing.T) {
	_, prev, _ := testKeys(t)
	tests := []struct {
		name, typ string
		key       func(f *fixture) *rsa.PrivateKey
	}{
		{"known type", "ready_to_confirm", func(f *fixture) *rsa.PrivateKey { return f.key }},
		{"unknown type kept", "brand_new_type", func(f *fixture) *rsa.PrivateKey { return f.key }},
		{"rotated key", "payment_finished", func(*fixture) *rsa.PrivateKey { return prev }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			b := body(tc.typ, "ps_7", "in_progress", 3)
			if code := f.post(t, b, sign(t, tc.key(f), b)); code != 200 {
				t.Fatalf("status = %d, want 200", code)
			}
			if got := f.prod.topics(); got[updatesTopic] != 1 || len(got) != 1 {
				t.Fatalf("records = %v, want one update", got)
			}
			r := f.prod.last(updatesTopic)
			var st codec.SessionState
			if err := json.Unmarshal(r.Value, &st); err != nil {
				t.Fatal(err)
			}
			if string(r.Key) != "ps_7" || st.Source != codec.SourceWebhook || *st.WebhookType != tc.typ || st.APIVersion != 1 || st.Session.ID != "ps_7" {
				t.Fatalf("update = %+v key %s", st, r.Key)
			}
			if id := headerOf(r, HeaderEventID); len(id) != 64 || headerOf(r, HeaderWebhookType) != tc.typ {
				t.Fatalf("update headers %v, want the event id (64 hex) and type %s", r.Headers, tc.typ)
			}
			if n := counterValue(t, f.reg, "paysession_webhook_requests_total", map[string]string{"type": typeLabel(tc.typ), "verdict": verdictAccepted}); n != 1 {
				t.Fatalf("accepted metric = %v", n)
			}
		})
	}
}

func TestDuplicatesAndReplays(t *testing.T) {
	f := newFixture(t, nil)
	newer := body("payment_finished", "ps_2", "accepted", 9)
	older := body("ready_to_confirm", "ps_2", "in_progress", 4)
	// Each event id is published once per replica; whether an older
	// state reaches the sessions topic is the session writer's decision.
	steps := []struct {
		name    string
		b       []byte
		updates int
	}{
		{"newer first", newer, 1},
		{"redelivery is not published again", newer, 1},
		{"older replay: its own event id, published", older, 2},
		{"older replay redelivered", older, 2},
	}
	for _, s := range steps {
		if code := f.post(t, s.b, sign(t, f.key, s.b)); code != 200 {
			t.Fatalf("%s: status %d", s.name, code)
		}
		if got := f.prod.topics(); got[updatesTopic] != s.updates {
			t.Fatalf("%s: records %v, want %d updates", s.name, got, s.updates)
		}
	}
	for _, d := range f.in.deliveries.All(time.Now()) {
		if !d.published || d.record != nil {
			t.Fatalf("delivery %s keeps its records after publishing", d.eventID)
		}
	}
}

func TestKafkaDownAnswers503ThenRetryPublishesOnce(t *testing.T) {
	tests := []struct {
		name string
		mode string // how Kafka misbehaves during the first delivery
	}{
		{"records fail", "fail"},
		{"records stay buffered", "hold"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			b := body("payment_finished", "ps_3", "accepted", 2)
			f.prod.setMode(tc.mode)
			if code := f.post(t, b, sign(t, f.key, b)); code != 503 {
				t.Fatalf("status = %d, want 503", code)
			}
			f.prod.setMode("ok")
			f.prod.release() // buffered records reach Kafka late
			if code := f.post(t, b, sign(t, f.key, b)); code != 200 {
				t.Fatalf("retry status = %d, want 200", code)
			}
			if got := f.prod.topics(); got[updatesTopic] != 1 {
				t.Fatalf("records = %v, want one update", got)
			}
		})
	}
}

func TestShutdownRefusesNewWebhooks(t *testing.T) {
	f := newFixture(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.in.Run(ctx) }()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	b := body("payment_finished", "ps_5", "accepted", 2)
	if code := f.post(t, b, sign(t, f.key, b)); code != 503 {
		t.Fatalf("status = %d, want 503", code)
	}
}

func TestConfigValidateNamesEveryField(t *testing.T) {
	err := Config{Path: "webhooks", MaxBodyBytes: -1, PublishTimeout: time.Minute, DeliveryTimeout: time.Second,
		DedupeTTL: -1, DedupeMaxEntries: -1, DefaultAPIVersion: 3}.Validate()
	if err == nil {
		t.Fatal("want error")
	}
	for _, field := range []string{"Path", "Verifier", "API", "Producer", "Encoder", "Logger", "MaxBodyBytes",
		"DeliveryTimeout", "DedupeTTL", "DedupeMaxEntries", "DefaultAPIVersion"} {
		if !strings.Contains(err.Error(), field) {
			t.Errorf("error does not name %s: %v", field, err)
		}
	}
	if _, err := New(Config{}); err == nil {
		t.Fatal("New accepted an empty config")
	}
}

// TestDedupeCacheIsBounded: the ingress remembers at most
// DedupeMaxEntries event ids, each for DedupeTTL.
func TestDedupeCacheIsBounded(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.DedupeMaxEntries, c.DedupeTTL = 2, time.Hour })
	d := f.in.deliveries
	now := time.Now()
	mk := func() *delivery { return &delivery{} }
	for i := 0; i < 5; i++ {
		d.GetOrAdd(fmt.Sprint(i), now, mk)
	}
	if n := d.Len(now); n != 2 {
		t.Fatalf("len = %d, want 2", n)
	}
	if _, created := d.GetOrAdd("4", now, mk); created {
		t.Fatal("newest id forgotten")
	}
	if _, created := d.GetOrAdd("4", now.Add(2*time.Hour), mk); !created {
		t.Fatal("expired id remembered")
	}
}

// counterValue reads one counter of reg, 0 when absent.
func counterValue(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if labels[lp.GetName()] != lp.GetValue() {
					continue metrics
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

func TestVersionIsDetectedFromTheBody(t *testing.T) {
	tests := []struct {
		name string
		body string
		want int32
	}{
		{"v1 payouts", `{"type":"payment_finished","session":{"id":"ps_1","status":"accepted","payments":[{"id":"po_1","status":"succeeded"}]}}`, 1},
		{"v2 payouts", `{"type":"payment_finished","session":{"id":"ps_1","status":"accepted","payout_list":[{"id":"po_1","status":"succeeded"}]}}`, 2},
		{"v2 payments", `{"type":"payment_finished","session":{"id":"ps_1","status":"accepted","payment_list":[{"id":"pm_1","status":"succeeded"}]}}`, 2},
		{"no operations: configured default", `{"type":"ready_to_confirm","session":{"id":"ps_1","status":"in_progress"}}`, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, func(c *Config) { c.DefaultAPIVersion = 2 })
			b := []byte(tc.body)
			if code := f.post(t, b, sign(t, f.key, b)); code != 200 {
				t.Fatalf("status %d", code)
			}
			var st codec.SessionState
			if err := json.Unmarshal(f.prod.last(updatesTopic).Value, &st); err != nil {
				t.Fatal(err)
			}
			if st.APIVersion != tc.want || len(st.Session.Operations) == 0 && tc.want != 2 {
				t.Fatalf("version %d, want %d (%+v)", st.APIVersion, tc.want, st.Session)
			}
		})
	}
}

// headerOf returns the value of r's header key.
func headerOf(r *kgo.Record, key string) string {
	for _, h := range r.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}
