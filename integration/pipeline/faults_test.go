package pipeline_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"
)

// faultProxy wraps the sandbox's handler and answers HTTP 503 without
// forwarding for chosen idempotency keys: failures[key] times, or always
// when the count is negative. It makes "5xx then success" deterministic.
type faultProxy struct {
	next     http.Handler
	mu       sync.Mutex
	failures map[string]int
	seen     map[string]int // requests per key
	calls    []call         // every forwarded request, in completion order
}

// call is one request the proxy forwarded to the sandbox.
type call struct {
	Key, Path, SessionID string
	Start, End           time.Time
	Status               int
}

func newFaultProxy(next http.Handler) *faultProxy {
	return &faultProxy{next: next, failures: map[string]int{}, seen: map[string]int{}}
}

func (f *faultProxy) fail(key string, times int) {
	f.mu.Lock()
	f.failures[key] = times
	f.mu.Unlock()
}

func (f *faultProxy) requests(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[key]
}

func (f *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("X-PARTNER-IDEMPOTENCY-KEY")
	f.mu.Lock()
	f.seen[key]++
	n, ok := f.failures[key]
	if ok && n != 0 {
		f.failures[key] = n - 1
	}
	f.mu.Unlock()
	if ok && n != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"status":"error","error":{"code":"service_unavailable","description":"injected"}}`))
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var ref struct {
		SessionID string `json:"session_id"`
	}
	_ = json.Unmarshal(body, &ref)
	c := call{Key: key, Path: r.URL.Path, SessionID: ref.SessionID, Start: time.Now()}
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	f.next.ServeHTTP(sw, r)
	c.End, c.Status = time.Now(), sw.status
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
}

// forwarded returns the requests forwarded so far.
func (f *faultProxy) forwarded() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}
