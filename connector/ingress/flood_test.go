package ingress

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// fakeSignature is well-formed (Base64 of a 2048-bit signature's length)
// and verifies under no key: it passes the header checks, so its body is
// read.
var fakeSignature = base64.StdEncoding.EncodeToString(make([]byte, 256))

// slowClient opens a connection to addr and sends a webhook's headers
// with fakeSignature and the first byte of a 1000-byte body, then nothing
// more: a client trickling its body. The connection closes at the test's
// end.
func slowClient(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_, err = fmt.Fprintf(conn, "POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n%s: %s\r\nContent-Length: 1000\r\n\r\n{",
		HeaderSignature, fakeSignature)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// postTo posts b with signature sig to url over a new connection and
// returns the status code, or -1 when the request failed.
func postTo(url string, b []byte, sig string) int {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return -1
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderSignature, sig)
	cl := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := cl.Do(req)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestSlowBodiesHoldNoSlot: more clients than MaxInFlight, each with a
// well-formed fake signature and a body it never finishes, take none of
// the slots, and a correctly signed webhook sent meanwhile is answered 200
// at once (issue 38, item 3: 130 such connections made every signed
// webhook get 503).
func TestSlowBodiesHoldNoSlot(t *testing.T) {
	const inFlight = 8
	f := newFixture(t, func(c *Config) {
		c.MaxInFlight, c.AdmitWait, c.PublishTimeout, c.BodyTimeout = inFlight, 50*time.Millisecond, 10*time.Second, time.Minute
	})
	srv := httptest.NewServer(f.in)
	t.Cleanup(srv.Close) // after the slow clients' connections close
	const slow = 3*inFlight + 2
	for range slow {
		slowClient(t, srv.Listener.Addr().String())
	}
	waitFor(t, "every slow client reading its body", func() bool { return len(f.in.bodies) == slow })
	if got := testutil.ToFloat64(f.in.metrics.inFlight); got != 0 {
		t.Fatalf("%v webhooks in flight with only unverified bodies being read, want 0", got)
	}

	b := body("payment_finished", "ps_flood", "accepted", 1)
	start := time.Now()
	if code := postTo(srv.URL+"/webhooks", b, sign(t, f.key, b)); code != http.StatusOK {
		t.Fatalf("signed webhook during the flood: status %d, want 200", code)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("signed webhook during the flood answered after %s", d)
	}
	if got := testutil.ToFloat64(f.in.metrics.requests.WithLabelValues("payment_finished", verdictOverloaded)); got != 0 {
		t.Fatalf("overloaded count %v, want 0", got)
	}
}

// TestBodyTimeout: a client that has not sent its whole body within
// BodyTimeout gets 408 and is counted as body_timeout, without holding a
// slot meanwhile; the deadline ends with the body, so a verified webhook
// whose publish outlasts BodyTimeout is still answered 200.
func TestBodyTimeout(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.BodyTimeout, c.PublishTimeout = 200*time.Millisecond, 10*time.Second })
	srv := httptest.NewServer(f.in)
	t.Cleanup(srv.Close)

	// A publish held by Kafka, longer than BodyTimeout.
	f.prod.setMode("hold")
	b := body("payment_finished", "ps_held", "accepted", 1)
	held := make(chan int, 1)
	go func() { held <- postTo(srv.URL+"/webhooks", b, sign(t, f.key, b)) }()
	waitFor(t, "the signed webhook in flight", func() bool { return testutil.ToFloat64(f.in.metrics.inFlight) == 1 })

	// A slow client that started after the held webhook's body was in:
	// once it is cut off, the held one's BodyTimeout has passed too.
	conn := slowClient(t, srv.Listener.Addr().String())
	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("slow client got no answer: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("slow client: status %d, want 408", resp.StatusCode)
	}
	if got := testutil.ToFloat64(f.in.metrics.requests.WithLabelValues("none", verdictBodyTimeout)); got != 1 {
		t.Fatalf("body_timeout count %v, want 1", got)
	}
	if got := testutil.ToFloat64(f.in.metrics.inFlight); got != 1 {
		t.Fatalf("in flight %v, want only the held webhook", got)
	}

	f.prod.release()
	if code := <-held; code != http.StatusOK {
		t.Fatalf("webhook whose publish outlasted BodyTimeout: status %d, want 200", code)
	}
}
