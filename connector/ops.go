package connector

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"net/url"
	"runtime"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/paysession/paysession/internal/config"
)

// Check reports whether one dependency is ready; a nil error means ready.
type Check func(ctx context.Context) error

// Readiness is a named set of checks behind /readyz.
type Readiness struct {
	mu      sync.RWMutex
	checks  map[string]Check
	details map[string]func() any
}

// NewReadiness returns an empty set: ready until a check is added.
func NewReadiness() *Readiness {
	return &Readiness{checks: map[string]Check{}, details: map[string]func() any{}}
}

// AddDetail registers (or replaces) a named piece of state /readyz reports
// beside the checks without judging it (an operator's pause: a paused
// connector is ready); a nil value is left out.
func (r *Readiness) AddDetail(name string, d func() any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.details[name] = d
}

// Details returns the non-nil details by name.
func (r *Readiness) Details() map[string]any {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := map[string]any{}
	for name, d := range r.details {
		if v := d(); v != nil {
			out[name] = v
		}
	}
	return out
}

// Add registers (or replaces) a named check.
func (r *Readiness) Add(name string, c Check) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checks[name] = c
}

// Evaluate runs every check with ctx and returns the failures by name.
func (r *Readiness) Evaluate(ctx context.Context) map[string]string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	failed := map[string]string{}
	for name, c := range r.checks {
		if err := c(ctx); err != nil {
			failed[name] = err.Error()
		}
	}
	return failed
}

// OpsOption changes what OpsHandler serves.
type OpsOption func(*opsOptions)

type opsOptions struct {
	pprof  bool
	status http.Handler
}

// WithStatus serves h at GET /status: the replica's status document
// (status.go).
func WithStatus(h http.Handler) OpsOption { return func(o *opsOptions) { o.status = h } }

// WithPprof serves the Go runtime's profiles (net/http/pprof) at
// /debug/pprof/ when on (PAYSESSION_METRICS_PPROF). A CPU profile or trace
// cannot last longer than the server's WriteTimeout.
func WithPprof(on bool) OpsOption { return func(o *opsOptions) { o.pprof = on } }

// OpsHandler serves /healthz (the process answers), /readyz (every
// readiness check passes; 503 with the failures otherwise; the details
// beside), and /metrics, with WithStatus /status,
// and with WithPprof the profiles at /debug/pprof/.
func OpsHandler(reg prometheus.Gatherer, ready *Readiness, opts ...OpsOption) http.Handler {
	var o opsOptions
	for _, opt := range opts {
		opt(&o)
	}
	mux := http.NewServeMux()
	if o.pprof {
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("POST /debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	if o.status != nil {
		mux.Handle("GET /status", o.status)
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		failed := ready.Evaluate(ctx)
		w.Header().Set("Content-Type", "application/json")
		if len(failed) > 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		doc := map[string]any{"ready": len(failed) == 0, "failed": failed}
		if d := ready.Details(); len(d) > 0 {
			doc["detail"] = d
		}
		_ = json.NewEncoder(w).Encode(doc)
	})
	// Readiness is a metric too, so that an alert sees a replica that stays
	// unready (a probe only takes it out of the Service).
	readyReg := prometheus.NewRegistry()
	readyReg.MustRegister(readinessCollector{ready: ready, desc: prometheus.NewDesc("paysession_ready",
		"Whether each readiness check of /readyz passes at the scrape (1) or not (0).", []string{"check"}, nil)})
	mux.Handle("GET /metrics", promhttp.HandlerFor(conventionalNames{prometheus.Gatherers{reg, readyReg}}, promhttp.HandlerOpts{}))
	return mux
}

// readinessCollector exports each readiness check as paysession_ready{check},
// evaluated at each scrape with the timeout of /readyz.
type readinessCollector struct {
	ready *Readiness
	desc  *prometheus.Desc
}

// Describe implements prometheus.Collector.
func (c readinessCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c readinessCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	failed := c.ready.Evaluate(ctx)
	c.ready.mu.RLock()
	defer c.ready.mu.RUnlock()
	for name := range c.ready.checks {
		v := 1.0
		if _, bad := failed[name]; bad {
			v = 0
		}
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, v, name)
	}
}

// DialCheck is a readiness check that a TCP connection to rawURL's host
// opens: the API answers at the network level (the service has no health
// endpoint, and a signed call would cost a request).
func DialCheck(rawURL string) Check {
	return func(ctx context.Context) error {
		u, err := url.Parse(rawURL)
		if err != nil {
			// url.Parse's error quotes the URL, and its reason may quote
			// a piece of a password: neither is repeated.
			return fmt.Errorf("api url %q does not parse", config.RedactURL(rawURL))
		}
		host := u.Host
		if u.Port() == "" {
			port := "443"
			if u.Scheme == "http" {
				port = "80"
			}
			host = net.JoinHostPort(u.Hostname(), port)
		}
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", host)
		if err != nil {
			return fmt.Errorf("api unreachable: %w", err)
		}
		return conn.Close()
	}
}

// ReachabilityTTL is how long a Reachability reuses its check's result:
// every scrape within it (Prometheus' replicas, a second scraper, someone's
// curl) reads the last result instead of opening a connection to the
// dependency, so the dependency sees at most one connection per TTL
// whatever the scrapes.
const ReachabilityTTL = 15 * time.Second

// Reachability exports a check's result as the gauge
// paysession_<name>_reachable (1 reachable, 0 not), evaluated with a short
// timeout at a scrape when the last result is ReachabilityTTL old or
// older. It is for dependencies that must not gate readiness.
type Reachability struct {
	check Check
	desc  *prometheus.Desc
	ttl   time.Duration
	now   func() time.Time

	mu        sync.Mutex // one check at a time; scrapes meanwhile wait for its result
	checked   time.Time  // when the last result was taken; zero: never
	reachable bool
}

// NewReachability returns the collector of check under name.
func NewReachability(name string, check Check) *Reachability {
	return &Reachability{check: check, ttl: ReachabilityTTL, now: time.Now,
		desc: prometheus.NewDesc("paysession_"+name+"_reachable",
			"Whether "+name+" answered a TCP connection at the last check, at most "+ReachabilityTTL.String()+" ago (1) or not (0).", nil, nil)}
}

// Describe implements prometheus.Collector.
func (r *Reachability) Describe(ch chan<- *prometheus.Desc) { ch <- r.desc }

// Collect implements prometheus.Collector.
func (r *Reachability) Collect(ch chan<- prometheus.Metric) {
	v := 0.0
	if r.result() {
		v = 1
	}
	ch <- prometheus.MustNewConstMetric(r.desc, prometheus.GaugeValue, v)
}

// result returns the last result while it is younger than ttl, else runs
// the check again.
func (r *Reachability) result() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.checked.IsZero() && r.now().Sub(r.checked) < r.ttl {
		return r.reachable
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	r.reachable = r.check(ctx) == nil
	r.checked = r.now()
	return r.reachable
}

// NewBuildInfo returns the gauge paysession_build_info, always 1, whose
// labels name the running build: version and revision as linked into the
// binary, and the Go version it was built with. Dashboards join on it to
// tell which build a replica runs.
func NewBuildInfo(version, revision string) prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "paysession_build_info",
		Help:        "The running build: always 1, labelled with version, revision and go_version.",
		ConstLabels: prometheus.Labels{"version": version, "revision": revision, "go_version": runtime.Version()}})
	g.Set(1)
	return g
}
