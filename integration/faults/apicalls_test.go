package faults_test

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/paysim"
)

// APICalls is a reverse proxy between the connector and the sandbox that
// counts the requests carrying each idempotency key. The sandbox's
// /admin/executions leaves out idempotent replays (answered from its store
// without executing), so it cannot tell how often a command was sent; the
// proxy can. Hold keeps requests at the proxy until Release.
type APICalls struct {
	URL string // the proxy's base URL: the connector's PAYSESSION_API_BASE_URL

	mu     sync.Mutex
	perKey map[string]int
	last   time.Time     // when the last request with a key arrived
	held   chan struct{} // closed by Release; nil when not held
}

// StartAPICalls starts a counting proxy to the sandbox at target on a
// loopback port; it stops when t ends (after the connector, which the rig
// starts later).
func StartAPICalls(t testing.TB, target string) *APICalls {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatalf("sandbox url %q: %v", target, err)
	}
	a := &APICalls{perKey: map[string]int{}}
	proxy := httputil.NewSingleHostReverseProxy(u)
	// A call the connector cancels (its timeout, a rebuilt session) is
	// the connector's business: the proxy answers 502 to nobody, quietly.
	proxy.ErrorLog = log.New(io.Discard, "", 0)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		held := a.held
		a.mu.Unlock()
		if held != nil {
			select {
			case <-held:
			case <-r.Context().Done(): // the connector gave up: never sent
				return
			}
		}
		if key := r.Header.Get(paysim.HeaderIdempotency); key != "" {
			a.mu.Lock()
			a.perKey[key]++
			a.last = time.Now()
			a.mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(a.Release) // runs first: Close waits for the requests in flight
	a.URL = srv.URL
	return a
}

// Hold keeps every request arriving from now on at the proxy, unsent and
// uncounted, until Release.
func (a *APICalls) Hold() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.held == nil {
		a.held = make(chan struct{})
	}
}

// Release sends the held requests on and stops holding.
func (a *APICalls) Release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.held != nil {
		close(a.held)
		a.held = nil
	}
}

// PerKey returns the requests counted so far for each idempotency key.
func (a *APICalls) PerKey() map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]int, len(a.perKey))
	for k, n := range a.perKey {
		out[k] = n
	}
	return out
}

// Most returns the key of cmds sent most often, how often, and the
// requests for all of cmds' keys together.
func (a *APICalls) Most(cmds []Command) (key string, most, total int) {
	per := a.PerKey()
	seen := map[string]bool{}
	for _, c := range cmds {
		if seen[c.Key] {
			continue
		}
		seen[c.Key] = true
		n := per[c.Key]
		total += n
		if n > most {
			key, most = c.Key, n
		}
	}
	return key, most, total
}

// Last returns when the last request with an idempotency key (a command's
// call) arrived; zero before any.
func (a *APICalls) Last() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}
