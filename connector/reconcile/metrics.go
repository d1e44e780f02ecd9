package reconcile

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	polls     *prometheus.CounterVec
	confirms  *prometheus.CounterVec
	warnings  prometheus.Counter
	stale     prometheus.Counter
	forgotten prometheus.Counter
}

func newMetrics(reg prometheus.Registerer, p *pendingSet) (*metrics, error) {
	m := &metrics{
		polls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "paysession_reconcile_polls_total",
			Help: "session/status polls by result: changed, unchanged, error, not_found, before_confirm (the fresh state an automatic session/confirm is sent for).",
		}, []string{"result"}),
		confirms: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "paysession_reconcile_auto_confirms_total",
			Help: "Automatic session/confirm calls by what the service did: confirmed, accepted (ok without a session), replayed (an earlier answer under the same key: nothing done), rejected (a final error), error (no final answer).",
		}, []string{"result"}),
		warnings: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "paysession_reconcile_confirm_deadline_warnings_total",
			Help: "Session states published because the confirmation deadline is near.",
		}),
		stale: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "paysession_reconcile_stale_sessions_total",
			Help: "Sessions older than the age limit that never settled: marked stale on the sessions topic and no longer polled.",
		}),
		forgotten: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "paysession_reconcile_forgotten_sessions_total",
			Help: "Open sessions forgotten because their last record on the sessions topic fell behind the horizon (stale-marked ones included): no longer polled.",
		}),
	}
	if reg == nil {
		return m, nil
	}
	open := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "paysession_reconcile_open_sessions",
		Help: "Sessions of this replica's partitions that are not settled.",
	}, func() float64 { return float64(p.open()) })
	for _, c := range []prometheus.Collector{m.polls, m.confirms, m.warnings, m.stale, m.forgotten, open} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return nil, err
			}
		}
	}
	return m, nil
}
