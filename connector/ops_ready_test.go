package connector

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestReadinessMetric: /metrics carries paysession_ready{check} with the
// result of each readiness check at the scrape, so an alert sees a replica
// that stays unready.
func TestReadinessMetric(t *testing.T) {
	ready := NewReadiness()
	srv := httptest.NewServer(OpsHandler(prometheus.NewRegistry(), ready))
	defer srv.Close()
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
	if body := scrape(); strings.Contains(body, "paysession_ready{") {
		t.Fatalf("series without checks:\n%s", body)
	}
	var kafkaUp atomic.Bool
	ready.Add("kafka", func(context.Context) error {
		if !kafkaUp.Load() {
			return errors.New("no brokers answered")
		}
		return nil
	})
	ready.Add("topics", func(context.Context) error { return nil })
	cases := []struct {
		name    string
		kafkaUp bool
		want    []string
	}{
		{"all pass", true, []string{`paysession_ready{check="kafka"} 1`, `paysession_ready{check="topics"} 1`}},
		{"one fails", false, []string{`paysession_ready{check="kafka"} 0`, `paysession_ready{check="topics"} 1`}},
		{"passes again", true, []string{`paysession_ready{check="kafka"} 1`}},
	}
	for _, tc := range cases {
		kafkaUp.Store(tc.kafkaUp)
		body := scrape()
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: no %q in\n%s", tc.name, w, body)
			}
		}
	}
}
