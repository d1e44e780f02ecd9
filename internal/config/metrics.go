package config

// Metrics configures the ops listener: metrics, health and, on demand,
// profiling.
type Metrics struct {
	ListenAddr string `env:"LISTEN_ADDR, default=:9090" desc:"listen address of /metrics, /healthz and /readyz"`
	// Pprof serves the Go runtime's profiles (net/http/pprof) on the same
	// listener. Off by default: a profile shows the program's internals and
	// a CPU profile costs CPU while it runs, so it is turned on for an
	// investigation, on a port only operators reach.
	Pprof bool `env:"PPROF, default=false" desc:"serve net/http/pprof (CPU, heap, goroutine profiles) at /debug/pprof/ on METRICS_LISTEN_ADDR; the port must not be reachable from outside the cluster"`
}
