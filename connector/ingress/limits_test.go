package ingress

import (
	"bytes"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
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

// TestInFlightBound: with MaxInFlight requests being served, one more is
// answered 503 with Retry-After once AdmitWait passed without a free slot,
// without its body being read, and counted as overloaded; the ones in flight
// then complete normally.
func TestInFlightBound(t *testing.T) {
	const bound = 2
	f := newFixture(t, func(c *Config) {
		c.MaxInFlight, c.AdmitWait, c.PublishTimeout = bound, 50*time.Millisecond, 10*time.Second
	})
	release := make(chan struct{})
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(free) // before the fixture's cleanup, which waits for the requests
	codes := make(chan int, bound+1)
	serve := func(b []byte, rb io.Reader) { codes <- f.serve(t, b, rb) }
	for i := range bound {
		b := body("payment_finished", "ps_"+string(rune('a'+i)), "accepted", i)
		sb := &slowBody{r: bytes.NewReader(b), started: make(chan struct{}), release: release}
		go serve(b, sb)
		<-sb.started // this request holds a slot, reading its body
	}
	extra := body("payment_finished", "ps_x", "accepted", 9)
	rb := &recordingBody{r: bytes.NewReader(extra)}
	req := httptest.NewRequest(http.MethodPost, "/webhooks", rb)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-PARTNER-SIGN", sign(t, f.key, extra))
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() { f.in.ServeHTTP(rec, req); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // only a broken bound gets here
		t.Fatal("request beyond MaxInFlight was not refused; it waits with the others")
	}
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q; want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	if rb.read.Load() {
		t.Fatal("body of the refused request was read")
	}
	if got := testutil.ToFloat64(f.in.metrics.requests.WithLabelValues("none", verdictOverloaded)); got != 1 {
		t.Fatalf("overloaded count %v, want 1", got)
	}
	if got := testutil.ToFloat64(f.in.metrics.inFlight); got != bound {
		t.Fatalf("in-flight gauge %v, want %d", got, bound)
	}
	free()
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

// TestInFlightBurstWaitsForASlot: a request beyond MaxInFlight waits for a
// slot (AdmitWait) and is served when one frees up, so a burst of webhooks
// is absorbed; beyond MaxWaiting waiting requests, one more gets 503 at
// once.
func TestInFlightBurstWaitsForASlot(t *testing.T) {
	f := newFixture(t, func(c *Config) {
		c.MaxInFlight, c.MaxWaiting, c.AdmitWait, c.PublishTimeout = 1, 1, time.Minute, 10*time.Second
	})
	release := make(chan struct{})
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(free)
	post := func(b []byte, rb io.Reader, codes chan<- int) { codes <- f.serve(t, b, rb) }
	first := body("payment_finished", "ps_a", "accepted", 1)
	sb := &slowBody{r: bytes.NewReader(first), started: make(chan struct{}), release: release}
	firstCode := make(chan int, 1)
	go post(first, sb, firstCode)
	<-sb.started // holds the only slot

	waiter := body("payment_finished", "ps_b", "accepted", 2)
	waiterCode := make(chan int, 1)
	go post(waiter, bytes.NewReader(waiter), waiterCode)
	deadline := time.Now().Add(10 * time.Second)
	for f.in.waiting.Load() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the second request is not waiting for a slot")
		}
		runtime.Gosched()
	}
	third := body("payment_finished", "ps_c", "accepted", 3)
	if code := f.post(t, third, sign(t, f.key, third)); code != http.StatusServiceUnavailable {
		t.Fatalf("beyond MaxWaiting: status %d, want 503 at once", code)
	}
	free()
	if code := <-firstCode; code != http.StatusOK {
		t.Fatalf("first: %d, want 200", code)
	}
	if code := <-waiterCode; code != http.StatusOK {
		t.Fatalf("waiting request: %d, want 200 once the slot was free", code)
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
