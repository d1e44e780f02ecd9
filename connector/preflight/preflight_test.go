package preflight

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"
)

func TestCheckAPI(t *testing.T) {
	plain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plain.Close)
	selfSigned := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(selfSigned.Close)
	tests := []struct {
		name, url, want string
	}{
		{"plain HTTP answers TCP", plain.URL, ""},
		{"https to a plain server fails TLS", strings.Replace(plain.URL, "http://", "https://", 1), ": TLS: "},
		{"a certificate the system roots do not sign fails TLS", selfSigned.URL, "certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkAPI(context.Background(), tt.url, 5*time.Second)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}

// TestCheckStopsAtVariables: variables that do not load are each a line,
// and nothing is dialled (no brokers are configured).
func TestCheckStopsAtVariables(t *testing.T) {
	env := map[string]string{"PAYSESSION_API_VERSION": "3", "PAYSESSION_LOG_LVEL": "debug"}
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	problems := Check(context.Background(), Config{Environ: environ, Env: envconfig.MapLookuper(env), Timeout: time.Second})
	var lines []string
	for _, p := range problems {
		if p.Area != "variables" {
			t.Errorf("problem beyond the variables: %s", p)
		}
		lines = append(lines, p.String())
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{"PAYSESSION_LOG_LVEL: not a variable of the connector (did you mean PAYSESSION_LOG_LEVEL?)",
		"PAYSESSION_API_VERSION", "PAYSESSION_KAFKA_BROKERS"} {
		if !strings.Contains(all, want) {
			t.Errorf("no line names %s:\n%s", want, all)
		}
	}
}
