package connector

import (
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// conventionalNames is the Gatherer /metrics serves: it exposes a gauge
// whose name ends in "_total", a suffix Prometheus' conventions reserve for
// counters (promtool check metrics refuses it), without that suffix.
// franz-go's kprom names its buffered-records gauges
// <ns>_buffered_fetch_records_total and <ns>_buffered_produce_records_total;
// renaming them where every family is exposed fixes them for each client
// (paysession_kafka_*, paysession_kafka_pipeline_*,
// paysession_kafka_session_writer_*) and for any client or gauge added
// later. A gauge keeps its name when the shorter one is taken.
type conventionalNames struct{ prometheus.Gatherer }

// Gather returns the families of the wrapped Gatherer with gauges renamed,
// in the order of their names.
func (g conventionalNames) Gather() ([]*dto.MetricFamily, error) {
	mfs, err := g.Gatherer.Gather()
	taken := make(map[string]bool, len(mfs))
	for _, mf := range mfs {
		taken[mf.GetName()] = true
	}
	for _, mf := range mfs {
		if mf.GetType() != dto.MetricType_GAUGE {
			continue
		}
		if name, ok := strings.CutSuffix(mf.GetName(), "_total"); ok && !taken[name] {
			mf.Name = &name
			taken[name] = true
		}
	}
	sort.Slice(mfs, func(i, j int) bool { return mfs[i].GetName() < mfs[j].GetName() })
	return mfs, err
}
