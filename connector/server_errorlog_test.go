package connector

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/config"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines and the
// test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestHTTPServerErrorLogIsRedacted: what net/http logs by itself (here the
// panic of a handler, whose value holds card data or a key) reaches the
// connector's structured logger, marked with the server's name and
// redacted, instead of the standard library's logger on stderr.
func TestHTTPServerErrorLogIsRedacted(t *testing.T) {
	const pan = "4111111111111111"
	const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAzzSecretKeyBytes\n-----END RSA PRIVATE KEY-----"
	tests := []struct {
		name    string
		panic   string
		leaks   string // must not be logged
		visible string // must be logged
	}{
		{"card number in a panic", `decode {"card":{"number":"` + pan + `"}}: bad`, pan, "411111******1111"},
		{"private key in a panic", "load key " + pem, "SecretKeyBytes", "[redacted PEM RSA PRIVATE KEY]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out syncBuffer
			l, err := Listen("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			s := &HTTPServer{Name: "webhook", Listener: l, Grace: time.Second,
				Logger:  NewLogger(&out, config.Log{Level: "info", Format: "json"}),
				Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(tc.panic) })}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.Run(ctx) }()
			t.Cleanup(func() { cancel(); <-done })

			resp, err := http.Get("http://" + l.Addr().String() + "/")
			if err == nil {
				resp.Body.Close() // the server drops the connection of a panicking handler
			}
			var line string
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				if line = panicLine(out.String()); line != "" {
					break
				}
			}
			switch {
			case line == "":
				t.Fatalf("no line of net/http's panic report in the connector's log:\n%s", out.String())
			case strings.Contains(out.String(), tc.leaks):
				t.Errorf("log leaks %q:\n%s", tc.leaks, out.String())
			case !strings.Contains(line, tc.visible) || !strings.Contains(line, `"level":"ERROR"`) || !strings.Contains(line, `"server":"webhook"`):
				t.Errorf("panic line %s\nwant level ERROR, server webhook and %q", line, tc.visible)
			}
		})
	}
}

// panicLine returns the log line of net/http's "http: panic serving", "" when
// none.
func panicLine(log string) string {
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "http: panic serving") {
			return line
		}
	}
	return ""
}
