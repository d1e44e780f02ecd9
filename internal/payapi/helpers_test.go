package payapi

import (
	"bytes"
	"crypto/rsa"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/signing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

var (
	keyOnce sync.Once
	testKey *rsa.PrivateKey
	keyErr  error
)

// key returns a 2048-bit key generated once per test binary (never committed).
func key(tb testing.TB) *rsa.PrivateKey {
	tb.Helper()
	keyOnce.Do(func() { testKey, keyErr = signing.GenerateKey(2048) })
	if keyErr != nil {
		tb.Fatal(keyErr)
	}
	return testKey
}

// captured is one request as the fake service received it.
type captured struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// fakeService is an httptest server that records requests and answers with
// the handler's response.
type fakeService struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []captured
}

func newFakeService(t *testing.T, respond http.HandlerFunc) *fakeService {
	t.Helper()
	f := &fakeService{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.reqs = append(f.reqs, captured{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		f.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		respond(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeService) requests() []captured {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]captured(nil), f.reqs...)
}

func (f *fakeService) last(t *testing.T) captured {
	t.Helper()
	rs := f.requests()
	if len(rs) == 0 {
		t.Fatal("no request reached the fake service")
	}
	return rs[len(rs)-1]
}

// jsonResponse answers with status and body.
func jsonResponse(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

type clientOpt func(*Config)

func newTestClient(t testing.TB, base string, version int, opts ...clientOpt) *Client {
	t.Helper()
	cfg := Config{BaseURL: base, Version: version, Project: "proj-1",
		Signer: signing.NewRSASigner(key(t), signing.PKCS1v15)}
	for _, o := range opts {
		o(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.now = func() time.Time { return fixedNow }
	return c
}

var fixedNow = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func withLogger(l *slog.Logger) clientOpt { return func(c *Config) { c.Logger = l } }

// golden compares got with testdata/<name>, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden (run with -update and review the diff)\n got: %s\nwant: %s", name, got, want)
	}
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
