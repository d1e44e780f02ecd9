package connector

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestMetricsGaugesHaveNoCounterSuffix: /metrics exposes a gauge named
// like a counter (as kprom's buffered-records gauges are) without the
// _total suffix, leaves counters alone, and keeps a gauge's name when the
// shorter one is taken.
func TestMetricsGaugesHaveNoCounterSuffix(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "paysession_kafka", Subsystem: "pipeline",
			Name: "buffered_produce_records_total", Help: "records buffered"}, func() float64 { return 7 }),
		prometheus.NewCounter(prometheus.CounterOpts{Name: "paysession_things_total", Help: "things"}),
		prometheus.NewGauge(prometheus.GaugeOpts{Name: "paysession_taken_total", Help: "a gauge"}),
		prometheus.NewGauge(prometheus.GaugeOpts{Name: "paysession_taken", Help: "another gauge"}),
	)
	srv := httptest.NewServer(OpsHandler(reg, NewReadiness()))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	body := string(b)
	for _, want := range []string{
		"# TYPE paysession_kafka_pipeline_buffered_produce_records gauge\npaysession_kafka_pipeline_buffered_produce_records 7\n",
		"# TYPE paysession_things_total counter\n",
		"# TYPE paysession_taken gauge\n",
		"# TYPE paysession_taken_total gauge\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics has no %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "buffered_produce_records_total") {
		t.Errorf("/metrics still exposes the gauge with _total:\n%s", body)
	}
}
