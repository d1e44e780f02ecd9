package main

import (
	"math"
	"runtime/metrics"
)

// schedLatencyMetric is the Go runtime's histogram of how long goroutines
// waited runnable before they ran. In this process it covers the
// connector and the bench's own clients.
const schedLatencyMetric = "/sched/latencies:seconds"

// schedLatencies reads the runtime's scheduling-latency histogram so far.
func schedLatencies() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: schedLatencyMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return nil
	}
	return s[0].Value.Float64Histogram()
}

// SchedLatency is how long goroutines of the bench process waited runnable
// during a phase: a reply from the broker or the API waits this long, each
// time, before any code sees it. Quantiles are bucket upper bounds.
type SchedLatency struct {
	P50MS  float64 `json:"p50_ms"`
	P99MS  float64 `json:"p99_ms"`
	P999MS float64 `json:"p999_ms"`
	// Over5MS counts the waits of at least 5 ms.
	Over5MS uint64 `json:"waits_over_5ms"`
}

// schedLatencySince returns the quantiles of the waits between two reads of
// schedLatencies (nil when the runtime has no such metric).
func schedLatencySince(before, after *metrics.Float64Histogram) *SchedLatency {
	if before == nil || after == nil || len(before.Counts) != len(after.Counts) {
		return nil
	}
	counts := make([]uint64, len(after.Counts))
	var total uint64
	for i := range counts {
		counts[i] = after.Counts[i] - before.Counts[i]
		total += counts[i]
	}
	if total == 0 {
		return &SchedLatency{}
	}
	quantile := func(q float64) float64 {
		var seen uint64
		for i, n := range counts {
			if seen += n; float64(seen) >= q*float64(total) {
				return upperMS(after.Buckets[i : i+2])
			}
		}
		return 0 // not reached: the counts add up to total
	}
	s := &SchedLatency{P50MS: quantile(0.50), P99MS: quantile(0.99), P999MS: quantile(0.999)}
	for i, n := range counts {
		if after.Buckets[i] >= 0.005 {
			s.Over5MS += n
		}
	}
	return s
}

// upperMS is the upper bound of the bucket [bounds[0], bounds[1]) in
// milliseconds; the last bucket has no upper bound, and then its lower one
// is given.
func upperMS(bounds []float64) float64 {
	b := bounds[1]
	if math.IsInf(b, 1) {
		b = bounds[0]
	}
	return round(b*1000, 3)
}
