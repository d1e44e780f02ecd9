package connector

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// dialCounter is a TCP listener that stands in for the API and counts the
// connections opened to it.
type dialCounter struct {
	l        net.Listener
	mu       sync.Mutex
	accepted []string // remote addresses, in order
}

func newDialCounter(t *testing.T) *dialCounter {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &dialCounter{l: l}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			d.mu.Lock()
			d.accepted = append(d.accepted, c.RemoteAddr().String())
			d.mu.Unlock()
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close(); <-done })
	return d
}

func (d *dialCounter) url() string { return "http://" + d.l.Addr().String() }

// dials returns how many connections were opened since its last call: it
// opens one more and waits for the listener, which accepts in order, to
// accept it.
func (d *dialCounter) dials(t *testing.T) int {
	t.Helper()
	c, err := net.Dial("tcp", d.l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mark := c.LocalAddr().String()
	deadline := time.Now().Add(10 * time.Second)
	for {
		d.mu.Lock()
		for i, a := range d.accepted {
			if a == mark {
				d.accepted = d.accepted[i+1:]
				d.mu.Unlock()
				return i
			}
		}
		d.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatal("the counting listener did not accept")
		}
		time.Sleep(time.Millisecond)
	}
}

// fakeClock is a clock the test moves; safe to read from the server's
// goroutines.
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// TestReachabilityDialsOncePerTTL: scrapes of /metrics within
// ReachabilityTTL open one connection to the API between them, not one
// each (issue 38, item 6: 300 scrapes opened 300 connections); the first
// scrape after it dials again.
func TestReachabilityDialsOncePerTTL(t *testing.T) {
	api := newDialCounter(t)
	r := NewReachability("api", DialCheck(api.url()))
	clock := &fakeClock{}
	r.now = clock.now
	reg := prometheus.NewRegistry()
	reg.MustRegister(r)
	srv := httptest.NewServer(OpsHandler(reg, NewReadiness()))
	t.Cleanup(srv.Close)
	scrape := func() string {
		t.Helper()
		resp, err := http.Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}

	const scrapes = 30
	for i := range scrapes {
		if m := scrape(); !strings.Contains(m, "paysession_api_reachable 1") {
			t.Fatalf("scrape %d lacks paysession_api_reachable 1", i)
		}
		clock.advance(ReachabilityTTL / (2 * scrapes))
	}
	if n := api.dials(t); n != 1 {
		t.Fatalf("%d scrapes within the TTL opened %d connections to the API, want 1", scrapes, n)
	}
	clock.advance(ReachabilityTTL)
	scrape()
	scrape()
	if n := api.dials(t); n != 1 {
		t.Fatalf("two scrapes after the TTL opened %d connections, want 1", n)
	}
}

// TestReachabilityReusesEitherResult: a failed check is reused like a
// passed one, and checked again once ReachabilityTTL passed.
func TestReachabilityReusesEitherResult(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{{"reachable", nil, true}, {"unreachable", errors.New("refused"), false}} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			r := NewReachability("x", func(context.Context) error { calls++; return tc.err })
			clock := &fakeClock{}
			r.now = clock.now
			for range 5 {
				if got := r.result(); got != tc.want {
					t.Fatalf("result %v, want %v", got, tc.want)
				}
			}
			clock.advance(ReachabilityTTL - 1)
			r.result()
			if calls != 1 {
				t.Fatalf("%d checks within the TTL, want 1", calls)
			}
			clock.advance(1)
			r.result()
			if calls != 2 {
				t.Fatalf("%d checks once the TTL passed, want 2", calls)
			}
		})
	}
}
