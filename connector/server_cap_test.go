package connector

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// startServer runs s until the test ends.
func startServer(t *testing.T, s *HTTPServer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// dialRequest opens a connection to addr and sends a GET of path on it;
// the connection closes at the test's end.
func dialRequest(t *testing.T, addr, path string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path); err != nil {
		t.Fatal(err)
	}
	return conn
}

// readStatus reads the answer on conn within d and returns its status
// code, or an error (os.ErrDeadlineExceeded: no answer within d).
func readStatus(conn net.Conn, r *bufio.Reader, d time.Duration) (int, error) {
	if err := conn.SetReadDeadline(time.Now().Add(d)); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// TestConnectionCapLeavesOpsAnswering: with MaxConnections connections
// busy on the webhook port and more waiting, connection N+1 is not served
// until one of them closes, while /readyz and /healthz of the ops server,
// on its own listener, keep answering (issue 38, item 3: 20,000 idle
// webhook connections took every file descriptor and /readyz stopped).
func TestConnectionCapLeavesOpsAnswering(t *testing.T) {
	const maxConns = 4
	entered := make(chan struct{}, maxConns)
	release := make(chan struct{})
	hookL, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	startServer(t, &HTTPServer{Name: "webhook", Listener: hookL, Grace: 5 * time.Second, Logger: slog.New(slog.DiscardHandler),
		MaxConnections: maxConns,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/hold" {
				entered <- struct{}{}
				select {
				case <-release:
				case <-r.Context().Done(): // the client left
				}
			}
		})})
	opsL, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	startServer(t, &HTTPServer{Name: "ops", Listener: opsL, Grace: time.Second, Logger: slog.New(slog.DiscardHandler),
		Handler: OpsHandler(prometheus.NewRegistry(), NewReadiness())})
	t.Cleanup(func() { close(release) }) // before the servers stop

	held := make([]net.Conn, maxConns)
	for i := range held {
		held[i] = dialRequest(t, hookL.Addr().String(), "/hold")
		<-entered
	}
	// One more connection, whose answer is awaited, and a flood behind it.
	next := dialRequest(t, hookL.Addr().String(), "/")
	nextR := bufio.NewReader(next)
	for range 3 * maxConns {
		dialRequest(t, hookL.Addr().String(), "/")
	}
	if code, err := readStatus(next, nextR, 300*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("connection beyond MaxConnections was served (status %d, %v), want it to wait", code, err)
	}

	for _, path := range []string{"/readyz", "/healthz"} {
		cl := &http.Client{Timeout: 5 * time.Second}
		resp, err := cl.Get("http://" + opsL.Addr().String() + path)
		if err != nil {
			t.Fatalf("ops %s while the webhook port is full: %v", path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("ops %s while the webhook port is full: %d", path, resp.StatusCode)
		}
	}

	// A slot frees up: the first connection waiting is served.
	held[0].Close()
	if code, err := readStatus(next, nextR, 10*time.Second); err != nil || code != http.StatusOK {
		t.Fatalf("waiting connection once a slot was free: status %d, %v; want 200", code, err)
	}
}

// TestConnectionCapShedsIdleConnections: at the cap, idle keep-alive
// connections are closed to make room, so a new connection is served at
// once instead of after IdleTimeout.
func TestConnectionCapShedsIdleConnections(t *testing.T) {
	const maxConns = 4
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	startServer(t, &HTTPServer{Name: "webhook", Listener: l, Grace: time.Second, Logger: slog.New(slog.DiscardHandler),
		MaxConnections: maxConns, IdleTimeout: time.Hour, Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})})
	for range maxConns {
		conn := dialRequest(t, l.Addr().String(), "/")
		if code, err := readStatus(conn, bufio.NewReader(conn), 5*time.Second); err != nil || code != http.StatusOK {
			t.Fatalf("first requests: %d %v", code, err)
		}
		// The connection stays open, idle.
	}
	next := dialRequest(t, l.Addr().String(), "/")
	if code, err := readStatus(next, bufio.NewReader(next), 5*time.Second); err != nil || code != http.StatusOK {
		t.Fatalf("new connection with the cap held by idle ones: status %d, %v; want 200 at once", code, err)
	}
}
