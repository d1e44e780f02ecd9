package connector

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestOpsHandler(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "paysession_test_things_total", Help: "things"})
	reg.MustRegister(c)
	c.Add(3)
	ready := NewReadiness()
	srv := httptest.NewServer(OpsHandler(reg, ready))
	defer srv.Close()

	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Fatalf("healthz = %d", code)
	}
	if code, body := get("/readyz"); code != 200 || !strings.Contains(body, `"ready":true`) {
		t.Fatalf("readyz with no checks = %d %s", code, body)
	}
	ready.Add("kafka", func(context.Context) error { return errors.New("no brokers answered") })
	ready.Add("api", func(context.Context) error { return nil })
	code, body := get("/readyz")
	var got struct {
		Ready  bool
		Failed map[string]string
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if code != 503 || got.Ready || got.Failed["kafka"] != "no brokers answered" || len(got.Failed) != 1 {
		t.Fatalf("readyz with a failing check = %d %+v", code, got)
	}
	if code, body := get("/metrics"); code != 200 || !strings.Contains(body, "paysession_test_things_total 3") {
		t.Fatalf("metrics = %d %s", code, body)
	}
}

func TestHTTPServerStopsOnCancel(t *testing.T) {
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	inHandler := make(chan struct{})
	release := make(chan struct{})
	s := &HTTPServer{Name: "test", Listener: l, Grace: 5 * time.Second, Logger: slog.New(slog.DiscardHandler),
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			close(inHandler)
			<-release
			_, _ = w.Write([]byte("done"))
		})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	respc := make(chan string, 1)
	go func() {
		resp, err := http.Get("http://" + l.Addr().String())
		if err != nil {
			respc <- "error: " + err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		respc <- string(b)
	}()
	<-inHandler
	cancel()
	close(release)
	if got := <-respc; got != "done" {
		t.Fatalf("in-flight request got %q, want it answered during shutdown", got)
	}
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
}

func TestDialCheck(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	if err := DialCheck(srv.URL)(context.Background()); err != nil {
		t.Fatalf("listening API reported unreachable: %v", err)
	}
	srv.Close()
	if err := DialCheck(srv.URL)(context.Background()); err == nil {
		t.Fatal("closed API reported reachable")
	}
	if err := DialCheck("http://[::1")(context.Background()); err == nil {
		t.Fatal("bad URL accepted")
	}
	// A password with a '#' splits the URL where the parser reads a port.
	if err := DialCheck("https://user:s3cr3t#x@api.example")(context.Background()); err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("error %v, want one without the password", err)
	}
}
