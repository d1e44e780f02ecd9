package sessionwriter

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	updates      *prometheus.CounterVec
	events       *prometheus.CounterVec
	transactions *prometheus.CounterVec
	takeovers    prometheus.Histogram
	takeoverRecs prometheus.Histogram
	forgotten    prometheus.Counter
}

func newMetrics(reg prometheus.Registerer, x *index) (*metrics, error) {
	m := &metrics{
		updates: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "paysession_session_writer_updates_total",
			Help: "Session updates by result: written (newer), republished (as new, a warning), older (dropped), stale (a session not remembered, updated before the horizon: dropped), unreadable (dropped), too_large (too large for the sessions topic even without metadata: dropped).",
		}, []string{"result"}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "paysession_session_writer_webhook_events_total",
			Help: "Webhook updates by result: written, duplicate (event id already written within the event window), or stale (a replay: its state was updated before the horizon, or before the event window and is not newer than the session's last).",
		}, []string{"result"}),
		transactions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "paysession_session_writer_transactions_total",
			Help: "Session writer transactions by result: commit, abort, unknown.",
		}, []string{"result"}),
		takeovers: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "paysession_session_writer_takeover_seconds",
			Help:    "Time to read a newly owned partition's sessions and recent webhook events before writing it.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 14),
		}),
		takeoverRecs: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "paysession_session_writer_takeover_records",
			Help:    "Records of the sessions topic read to take a partition over: those of the horizon, not the partition's whole history.",
			Buckets: prometheus.ExponentialBuckets(100, 4, 10),
		}),
		forgotten: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "paysession_session_writer_sessions_forgotten_total",
			Help: "Sessions forgotten because their last state was written longer ago than the horizon (PAYSESSION_SESSIONS_HORIZON plus one hour).",
		}),
	}
	if reg == nil {
		return m, nil
	}
	known := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "paysession_session_writer_sessions",
		Help: "Sessions whose last written version this replica holds: those of its owned partitions written within the horizon.",
	}, func() float64 { return float64(x.sessions()) })
	for _, c := range []prometheus.Collector{m.updates, m.events, m.transactions, m.takeovers, m.takeoverRecs, m.forgotten, known} {
		if err := reg.Register(c); err != nil {
			return nil, errors.Join(errors.New("session writer metrics"), err)
		}
	}
	return m, nil
}
