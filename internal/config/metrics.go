package config

// Metrics configures the ops listener: metrics, health and, on demand,
// profiling.
type Metrics struct {
	// ListenAddr is loopback by default: the port serves the process's
	// internals (metrics, and profiles when on) and is for the host's own
	// scraper and probes. Where they come from elsewhere, name the address
	// they reach: the Helm chart binds the pod's IP, which the kubelet
	// probes and Prometheus scrapes.
	ListenAddr string `env:"LISTEN_ADDR, default=127.0.0.1:9090" desc:"listen address of /metrics, /healthz and /readyz; loopback by default, set host:port (the Helm chart: the pod's IP) or :port for a scraper or probes from elsewhere"`
	// Pprof serves the Go runtime's profiles (net/http/pprof) on the same
	// listener. Off by default: a profile shows the program's internals and
	// a CPU profile costs CPU while it runs, so it is turned on for an
	// investigation, on a port only operators reach.
	Pprof bool `env:"PPROF, default=false" desc:"serve net/http/pprof (CPU, heap, goroutine profiles) at /debug/pprof/ on METRICS_LISTEN_ADDR; the port must not be reachable from outside the cluster"`
}
