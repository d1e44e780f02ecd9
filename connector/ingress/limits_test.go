package ingress

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// recordingBody is a request body that records whether anyone read it.
type recordingBody struct {
	r    io.Reader
	read atomic.Bool
}

func (b *recordingBody) Read(p []byte) (int, error) {
	b.read.Store(true)
	return b.r.Read(p)
}

// TestSignatureShapeCheckedBeforeBody: a webhook without a well-formed
// X-PARTNER-SIGN is refused with 401 before a byte of its body is read, so
// unsigned traffic cannot make the process buffer bodies.
func TestSignatureShapeCheckedBeforeBody(t *testing.T) {
	cur, _, forger := testKeys(t)
	good := body("payment_finished", "ps_1", "accepted", 5)
	b64 := base64.StdEncoding.EncodeToString
	tests := []struct {
		name     string
		sigs     []string // X-PARTNER-SIGN values; none: header absent
		wantRead bool
	}{
		{"missing", nil, false},
		{"empty", []string{""}, false},
		{"not base64", []string{"!!notbase64"}, false},
		{"url-safe base64", []string{strings.NewReplacer("+", "-", "/", "_").Replace(sign(t, cur, good) + "-_")}, false},
		{"too short for RSA", []string{b64(bytes.Repeat([]byte{1}, 64))}, false},
		{"too long for RSA", []string{b64(bytes.Repeat([]byte{1}, 1025))}, false},
		{"far too long", []string{strings.Repeat("A", 1<<16)}, false},
		{"two headers", []string{sign(t, cur, good), sign(t, cur, good)}, false},
		// Well-shaped but forged: the body must be read to verify it.
		{"forged, well-shaped", []string{sign(t, forger, good)}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			rb := &recordingBody{r: bytes.NewReader(good)}
			req := httptest.NewRequest(http.MethodPost, "/webhooks", rb)
			req.Header.Set("Content-Type", "application/json")
			for _, s := range tc.sigs {
				req.Header.Add("X-PARTNER-SIGN", s)
			}
			rec := httptest.NewRecorder()
			f.in.ServeHTTP(rec, req)
			if rec.Code != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401", rec.Code)
			}
			if got := rb.read.Load(); got != tc.wantRead {
				t.Fatalf("body read = %v, want %v", got, tc.wantRead)
			}
			if got := testutil.ToFloat64(f.in.metrics.requests.WithLabelValues("none", verdictBadSignature)); got != 1 {
				t.Fatalf("bad_signature count %v, want 1", got)
			}
		})
	}
}

// slowBody is a body whose first Read announces itself and then waits for
// release: a client that trickles its body.
type slowBody struct {
	r       io.Reader
	started chan struct{}
	release chan struct{}
	once    atomic.Bool
}

func (b *slowBody) Read(p []byte) (int, error) {
	if b.once.CompareAndSwap(false, true) {
		close(b.started)
		<-b.release
	}
	return b.r.Read(p)
}

// TestBodiesBound: with MaxBodies requests reading their bodies, one more
// is answered 503 with Retry-After at once, without its body being read,
// and counted as overloaded; the ones reading then complete normally.
func TestBodiesBound(t *testing.T) {
	const bound = 2
	f := newFixture(t, func(c *Config) { c.MaxBodies, c.PublishTimeout = bound, 10*time.Second })
	release := make(chan struct{})
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(free) // before the fixture's cleanup, which waits for the requests
	codes := make(chan int, bound)
	for i := range bound {
		b := body("payment_finished", "ps_"+string(rune('a'+i)), "accepted", i)
		sb := &slowBody{r: bytes.NewReader(b), started: make(chan struct{}), release: release}
		go func() { codes <- f.serve(t, b, sb) }()
		<-sb.started // this request holds a body, reading it
	}
	if got := testutil.ToFloat64(f.in.metrics.inFlight); got != 0 {
		t.Fatalf("in-flight gauge %v while bodies are read, want 0: reading holds no slot", got)
	}
	extra := body("payment_finished", "ps_x", "accepted", 9)
	rb := &recordingBody{r: bytes.NewReader(extra)}
	req := httptest.NewRequest(http.MethodPost, "/webhooks", rb)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-PARTNER-SIGN", sign(t, f.key, extra))
	rec := httptest.NewRecorder()
	f.in.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q; want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	if rb.read.Load() {
		t.Fatal("body of the refused request was read")
	}
	if got := testutil.ToFloat64(f.in.metrics.requests.WithLabelValues("none", verdictOverloaded)); got != 1 {
		t.Fatalf("overloaded count %v, want 1", got)
	}
	free()
	for range bound {
		if code := <-codes; code != http.StatusOK {
			t.Fatalf("request reading its body answered %d, want 200", code)
		}
	}
	if code := f.post(t, extra, sign(t, f.key, extra)); code != http.StatusOK {
		t.Fatalf("after the bodies were read: status %d, want 200", code)
	}
}

// holdInFlight makes Kafka hold what it is sent and posts n signed
// webhooks in the background, returning once all n are in flight; their
// status codes arrive on the channel once the producer releases them.
func (f *fixture) holdInFlight(t *testing.T, n int) <-chan int {
	t.Helper()
	f.prod.setMode("hold")
	codes := make(chan int, n)
	for i := range n {
		b := body("payment_finished", "ps_held_"+string(rune('a'+i)), "accepted", i)
		go func() { codes <- f.serve(t, b, bytes.NewReader(b)) }()
	}
	waitFor(t, fmt.Sprintf("%d webhooks in flight", n), func() bool { return testutil.ToFloat64(f.in.metrics.inFlight) == float64(n) })
	return codes
}

// TestInFlightBound: with MaxInFlight verified webhooks being published,
// one more is answered 503 with Retry-After once AdmitWait passed without a
// free slot, and counted as overloaded; the ones in flight then complete
// normally.
func TestInFlightBound(t *testing.T) {
	const bound = 2
	f := newFixture(t, func(c *Config) {
		c.MaxInFlight, c.AdmitWait, c.PublishTimeout = bound, 50*time.Millisecond, 10*time.Second
	})
	codes := f.holdInFlight(t, bound)
	extra := body("payment_finished", "ps_x", "accepted", 9)
	if code := f.post(t, extra, sign(t, f.key, extra)); code != http.StatusServiceUnavailable {
		t.Fatalf("beyond MaxInFlight: status %d, want 503", code)
	}
	if got := testutil.ToFloat64(f.in.metrics.requests.WithLabelValues("payment_finished", verdictOverloaded)); got != 1 {
		t.Fatalf("overloaded count %v, want 1", got)
	}
	if got := testutil.ToFloat64(f.in.metrics.inFlight); got != bound {
		t.Fatalf("in-flight gauge %v, want %d", got, bound)
	}
	f.prod.setMode("ok")
	f.prod.release()
	for range bound {
		if code := <-codes; code != http.StatusOK {
			t.Fatalf("request in flight answered %d, want 200", code)
		}
	}
	if got := testutil.ToFloat64(f.in.metrics.inFlight); got != 0 {
		t.Fatalf("in-flight gauge %v after all ended, want 0", got)
	}
	// A slot is free again: the next request is served.
	if code := f.post(t, extra, sign(t, f.key, extra)); code != http.StatusOK {
		t.Fatalf("after the burst: status %d, want 200", code)
	}
}

// TestInFlightBurstWaitsForASlot: a verified webhook beyond MaxInFlight
// waits for a slot (AdmitWait) and is served when one frees up, so a burst
// of webhooks is absorbed; beyond MaxWaiting waiting webhooks, one more
// gets 503 at once.
func TestInFlightBurstWaitsForASlot(t *testing.T) {
	f := newFixture(t, func(c *Config) {
		c.MaxInFlight, c.MaxWaiting, c.AdmitWait, c.PublishTimeout = 1, 1, time.Minute, 10*time.Second
	})
	firstCode := f.holdInFlight(t, 1) // holds the only slot
	waiter := body("payment_finished", "ps_b", "accepted", 2)
	waiterCode := make(chan int, 1)
	go func() { waiterCode <- f.serve(t, waiter, bytes.NewReader(waiter)) }()
	waitFor(t, "the second webhook waiting for a slot", func() bool { return f.in.waiting.Load() == 1 })
	third := body("payment_finished", "ps_c", "accepted", 3)
	if code := f.post(t, third, sign(t, f.key, third)); code != http.StatusServiceUnavailable {
		t.Fatalf("beyond MaxWaiting: status %d, want 503 at once", code)
	}
	f.prod.setMode("ok")
	f.prod.release()
	if code := <-firstCode; code != http.StatusOK {
		t.Fatalf("first: %d, want 200", code)
	}
	if code := <-waiterCode; code != http.StatusOK {
		t.Fatalf("waiting webhook: %d, want 200 once the slot was free", code)
	}
}

// serve sends one signed webhook whose body is read from rb (b is what the
// signature covers) and returns the status code.
func (f *fixture) serve(t *testing.T, b []byte, rb io.Reader) int {
	req := httptest.NewRequest(http.MethodPost, "/webhooks", rb)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-PARTNER-SIGN", sign(t, f.key, b))
	rec := httptest.NewRecorder()
	f.in.ServeHTTP(rec, req)
	return rec.Code
}
