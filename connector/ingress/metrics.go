package ingress

import (
	"errors"
	"maps"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	requests        *prometheus.CounterVec
	publishDuration prometheus.Histogram
	inFlight        prometheus.Gauge
}

// Verdicts of paysession_webhook_requests_total.
const (
	verdictAccepted       = "accepted"
	verdictDuplicate      = "duplicate"
	verdictNotFound       = "not_found"
	verdictBadMethod      = "bad_method"
	verdictBadContentType = "bad_content_type"
	verdictTooLarge       = "too_large"
	verdictBadSignature   = "bad_signature"
	verdictMalformed      = "malformed"
	verdictUnavailable    = "unavailable"
	verdictOverloaded     = "overloaded"   // beyond MaxInFlight or MaxBodies: 503 with Retry-After
	verdictBodyTimeout    = "body_timeout" // body not sent within BodyTimeout: 408
	// 200, nothing published (binding.go): a session held under another
	// project than the path's, or one session/status under the path's
	// project does not find.
	verdictForeignProject = "foreign_project"
	verdictUnknownSession = "unknown_session"
)

func newMetrics(reg prometheus.Registerer, dedupeEntries func() int) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "paysession_webhook_requests_total",
			Help: "Webhook requests by webhook type (other for unknown types, none before parsing) and verdict.",
		}, []string{"type", "verdict"}),
		publishDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "paysession_webhook_publish_duration_seconds",
			Help:    "Time from producing a webhook's update record to Kafka's acknowledgement.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 15),
		}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "paysession_webhook_requests_in_flight",
			Help: "Verified webhooks being published; at most MaxInFlight, beyond it 503 (verdict overloaded).",
		}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	if m.requests, err = register(reg, m.requests); err != nil {
		return nil, err
	}
	// The 503 verdicts exist from the start at 0, so that the first ones
	// count in rate() (a series' first value is no increase).
	for _, t := range append([]string{"none", "other"}, slices.Sorted(maps.Keys(knownTypes))...) {
		m.requests.WithLabelValues(t, verdictUnavailable)
		m.requests.WithLabelValues(t, verdictOverloaded)
	}
	if m.publishDuration, err = register(reg, m.publishDuration); err != nil {
		return nil, err
	}
	if m.inFlight, err = register(reg, m.inFlight); err != nil {
		return nil, err
	}
	entries := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "paysession_webhook_dedupe_entries",
		Help: "Event ids remembered by this replica's webhook dedupe cache.",
	}, func() float64 { return float64(dedupeEntries()) })
	if _, err = register(reg, prometheus.Collector(entries)); err != nil {
		return nil, err
	}
	return m, nil
}

// register registers c, or returns the identical collector registered
// before (two ingresses sharing a registry share their metrics).
func register[T prometheus.Collector](reg prometheus.Registerer, c T) (T, error) {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(T); ok {
				return existing, nil
			}
		}
		return c, err
	}
	return c, nil
}

var knownTypes = map[string]bool{
	"action_required": true, "ready_to_confirm": true, "ready_to_capture": true,
	"payment_finished": true, "payment_refunded": true,
}

// typeLabel keeps the type label bounded: unknown types count as other.
func typeLabel(t string) string {
	switch {
	case t == "":
		return "none"
	case knownTypes[t]:
		return t
	default:
		return "other"
	}
}
