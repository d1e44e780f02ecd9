package connector

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"testing"
	"time"
)

// TestHTTPServerCutsOffSlowClients: a connection that never finishes its
// headers (slowloris), or never finishes its body, is closed by the server
// once the configured timeout passes, instead of holding a connection and
// its buffers for as long as the client likes.
func TestHTTPServerCutsOffSlowClients(t *testing.T) {
	tests := []struct {
		name string
		sent string // what the client sends before going silent
	}{
		{"headers never finished", "POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"},
		{"body never finished", "POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"type\":"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Listen("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			s := &HTTPServer{Name: "test", Listener: l, Grace: time.Second, Logger: slog.New(slog.DiscardHandler),
				ReadHeaderTimeout: 50 * time.Millisecond, ReadTimeout: 100 * time.Millisecond,
				Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if _, err := io.ReadAll(r.Body); err != nil {
						http.Error(w, "body not read", http.StatusBadRequest)
					}
				})}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.Run(ctx) }()
			t.Cleanup(func() { cancel(); <-done })

			conn, err := net.Dial("tcp", l.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, tc.sent); err != nil {
				t.Fatal(err)
			}
			// Wait for the server to close the connection: reads end in EOF
			// (or a reset). The read deadline only keeps a broken server
			// from hanging the test; it is far above the injected timeouts
			// and far below the 10s default, which would fail here.
			if err := conn.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
				t.Fatal(err)
			}
			_, err = io.Copy(io.Discard, conn)
			if errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatal("server kept the slow connection open")
			}
		})
	}
}

// TestHTTPServerDefaults: zero fields take the documented defaults, and set
// ones are used as given.
func TestHTTPServerDefaults(t *testing.T) {
	def := (&HTTPServer{}).server()
	if def.ReadHeaderTimeout != DefaultReadHeaderTimeout || def.ReadTimeout != DefaultReadTimeout ||
		def.WriteTimeout != DefaultWriteTimeout || def.IdleTimeout != DefaultIdleTimeout || def.MaxHeaderBytes != http.DefaultMaxHeaderBytes {
		t.Errorf("defaults not applied: %+v", def)
	}
	set := (&HTTPServer{ReadHeaderTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 3 * time.Second,
		IdleTimeout: 4 * time.Second, MaxHeaderBytes: 8192}).server()
	if set.ReadHeaderTimeout != time.Second || set.ReadTimeout != 2*time.Second || set.WriteTimeout != 3*time.Second ||
		set.IdleTimeout != 4*time.Second || set.MaxHeaderBytes != 8192 {
		t.Errorf("settings not applied: %+v", set)
	}
}
