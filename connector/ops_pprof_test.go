package connector

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestOpsHandlerPprof: the profiles are served only when asked for
// (PAYSESSION_METRICS_PPROF), beside the usual endpoints.
func TestOpsHandlerPprof(t *testing.T) {
	cases := []struct {
		name string
		opts []OpsOption
		want map[string]int // path -> status
	}{
		{"off by default", nil, map[string]int{
			"/debug/pprof/": 404, "/debug/pprof/heap?debug=1": 404, "/debug/pprof/cmdline": 404, "/metrics": 200}},
		{"off", []OpsOption{WithPprof(false)}, map[string]int{"/debug/pprof/": 404, "/healthz": 200}},
		{"on", []OpsOption{WithPprof(true)}, map[string]int{
			"/debug/pprof/": 200, "/debug/pprof/heap?debug=1": 200, "/debug/pprof/goroutine?debug=1": 200,
			"/debug/pprof/cmdline": 200, "/metrics": 200, "/healthz": 200}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(OpsHandler(prometheus.NewRegistry(), NewReadiness(), tc.opts...))
			defer srv.Close()
			for path, want := range tc.want {
				resp, err := http.Get(srv.URL + path)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != want {
					t.Errorf("GET %s = %d, want %d", path, resp.StatusCode, want)
				}
				if want == 200 && strings.HasPrefix(path, "/debug/pprof/heap") && !strings.Contains(string(body), "heap profile") {
					t.Errorf("GET %s is not a heap profile: %.200s", path, body)
				}
			}
		})
	}
}
