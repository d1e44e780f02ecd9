package pipeline

import (
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// metrics are the pipeline's Prometheus series.
type metrics struct {
	commands     *prometheus.CounterVec   // kind, status
	apiDuration  *prometheus.HistogramVec // endpoint, outcome
	retries      *prometheus.CounterVec   // kind
	inFlight     prometheus.Gauge
	transactions *prometheus.CounterVec   // result
	txnPhase     *prometheus.HistogramVec // phase: marks, calls, produce, end
	pollAhead    prometheus.Counter
	lag          *prometheus.GaugeVec // topic, partition
	deadLetters  prometheus.Counter
	paused       prometheus.Gauge
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		commands: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "paysession_pipeline_commands_total",
			Help: "Commands with a committed result, by kind and status.",
		}, []string{"kind", "status"}),
		apiDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "paysession_api_request_duration_seconds",
			Help:    "Duration of API calls made by the pipeline, by endpoint and outcome (ok, retryable, lost, error).",
			Buckets: prometheus.ExponentialBuckets(0.005, 2, 14),
		}, []string{"endpoint", "outcome"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "paysession_pipeline_retries_total",
			Help: "API call attempts after a command's first (in the same batch or resumed from the retry topic), by command kind.",
		}, []string{"kind"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "paysession_pipeline_in_flight",
			Help: "API calls in flight.",
		}),
		transactions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "paysession_pipeline_transactions_total",
			Help: "Kafka transactions ended, by result (commit, abort, unknown).",
		}, []string{"result"}),
		txnPhase: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "paysession_pipeline_transaction_phase_seconds",
			Help:    "Time of each phase of a batch's transaction: marks (decode, attempt marks), calls (the API calls of the batch still running once the previous transaction ended), produce (outcome records, after the previous transaction completed), end (flush, offsets, commit or abort).",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}, []string{"phase"}),
		pollAhead: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "paysession_pipeline_batches_ahead_total",
			Help: "Batches polled and started while the previous transaction was ending: their attempt marks and API calls overlap its end.",
		}),
		lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "paysession_pipeline_consumer_lag",
			Help: "Records of a consumed partition not yet polled: its last stable offset minus the next offset to poll, as of the latest fetch of the partition.",
		}, []string{"topic", "partition"}),
		deadLetters: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "paysession_pipeline_dead_letters_total",
			Help: "Records committed to the dead-letter topic.",
		}),
		paused: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "paysession_pipeline_paused",
			Help: "1 while fetching is paused because the API keeps failing (back-pressure), until a probe call gets an answer; else 0.",
		}),
	}
	// Every kind × status and every transaction result exists from the
	// start at 0: rate() cannot count the value a series first appears
	// with, so the first indeterminate results would not raise the alert.
	for _, k := range codec.Kinds() {
		for _, s := range []codec.CommandStatus{codec.StatusAccepted, codec.StatusRejected, codec.StatusExpired,
			codec.StatusInvalid, codec.StatusIndeterminate} {
			m.commands.WithLabelValues(string(k), string(s))
		}
	}
	for _, r := range []string{"commit", "abort", "unknown"} {
		m.transactions.WithLabelValues(r)
	}
	if reg == nil {
		return m, nil
	}
	var errs []error
	for _, c := range []prometheus.Collector{m.commands, m.apiDuration, m.retries, m.inFlight, m.transactions, m.txnPhase, m.pollAhead, m.lag, m.deadLetters, m.paused} {
		errs = append(errs, reg.Register(c))
	}
	return m, errors.Join(errs...)
}

// observeCall records one API call's duration with a bounded outcome label.
func (m *metrics) observeCall(endpoint string, err error, d time.Duration) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
		var ae *payapi.Error
		if errors.As(err, &ae) {
			switch {
			case ae.Retryable:
				outcome = "retryable"
			case ae.HTTPStatus == 0 && ae.Sent:
				outcome = "lost"
			}
		}
	}
	m.apiDuration.WithLabelValues(endpoint, outcome).Observe(d.Seconds())
}

// fetchEnds is, per partition, the end a consumer could reach at its last
// fetch with records (read_committed: the last stable offset).
type fetchEnds map[topicPartition]int64

func (e fetchEnds) learn(fs kgo.Fetches) {
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		if len(p.Records) == 0 {
			return
		}
		end := p.LastStableOffset
		if end <= 0 {
			end = p.HighWatermark
		}
		e[topicPartition{p.Topic, p.Partition}] = end
	})
}

// observeLag sets the lag of every partition of a batch and of the records
// held behind it: the records from the first one not in a batch yet (held,
// or past the batch) to the end last fetched. It returns the lags it set.
func (m *metrics) observeLag(ends fetchEnds, batch, held []*kgo.Record) map[topicPartition]int64 {
	next := map[topicPartition]int64{}
	for _, r := range batch {
		next[topicPartition{r.Topic, r.Partition}] = r.Offset + 1 // a partition's records are in offset order
	}
	for _, r := range slices.Backward(held) { // a partition's first held record is the last written
		next[topicPartition{r.Topic, r.Partition}] = r.Offset
	}
	lags := map[topicPartition]int64{}
	for tp, n := range next {
		if end, ok := ends[tp]; ok {
			lags[tp] = max(end-n, 0)
			m.lag.WithLabelValues(tp.Topic, strconv.Itoa(int(tp.Partition))).Set(float64(lags[tp]))
		}
	}
	return lags
}

// forgetLag drops the lag series of partitions this member no longer owns.
func (m *metrics) forgetLag(parts map[string][]int32) {
	for t, ps := range parts {
		for _, p := range ps {
			m.lag.DeleteLabelValues(t, strconv.Itoa(int(p)))
		}
	}
}
