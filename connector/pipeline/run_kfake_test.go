package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// kfakeEnv is an in-process Kafka with the pipeline's topics.
type kfakeEnv struct {
	cluster *kfake.Cluster
	seeds   []string
	topics  Topics
	reg     *prometheus.Registry
}

func newKfakeEnv(t *testing.T, opts ...kfake.Opt) *kfakeEnv {
	t.Helper()
	topics := DefaultTopics()
	all := topics.All()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.SeedTopics(2, all...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &kfakeEnv{cluster: c, seeds: c.ListenAddrs(), topics: topics, reg: prometheus.NewRegistry()}
}

// start runs a pipeline until the test ends; it returns a stop function that
// cancels Run and waits for it.
func (e *kfakeEnv) start(t *testing.T, api API, mod func(*Config)) (stop func() error) {
	t.Helper()
	return e.run(t, e.pipeline(t, api, mod))
}

// pipeline builds a pipeline on the cluster, modified by mod.
func (e *kfakeEnv) pipeline(t *testing.T, api API, mod func(*Config)) *Pipeline {
	t.Helper()
	cfg := Config{
		Kafka: []kgo.Opt{kgo.SeedBrokers(e.seeds...), kgo.FetchMaxWait(50 * time.Millisecond)}, GroupID: "pipeline",
		TransactionalID: "pipeline-0", Topics: e.topics, API: api, Decoder: &jsonCodec{}, Encoder: &jsonCodec{},
		BatchDeadline: 2 * time.Second, TransactionTimeout: 10 * time.Second, JitterSeed: 1,
		Retry: RetryPolicy{Initial: 5 * time.Millisecond, Max: 20 * time.Millisecond}, Registerer: e.reg,
	}
	if mod != nil {
		mod(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// run runs p until the test ends; it returns a stop function that cancels
// Run and waits for it.
func (e *kfakeEnv) run(t *testing.T, p *Pipeline) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	var once sync.Once
	var runErr error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(30 * time.Second):
				runErr = fmt.Errorf("Run did not return")
			}
		})
		return runErr
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

// produce writes recs to the partitions they name (Partition, default 0).
func (e *kfakeEnv) produce(t *testing.T, recs ...*kgo.Record) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.seeds...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// results reads committed command results until n arrived or the timeout.
func (e *kfakeEnv) results(t *testing.T, n int, timeout time.Duration) map[string][]codec.CommandResult {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.seeds...), kgo.ConsumeTopics(e.topics.Results),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	out := map[string][]codec.CommandResult{}
	total := 0
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for total < n && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			var res codec.CommandResult
			if err := json.Unmarshal(r.Value, &res); err != nil {
				t.Errorf("result: %v", err)
			}
			out[string(r.Key)] = append(out[string(r.Key)], res)
			total++
		})
	}
	if total < n {
		t.Fatalf("got %d results, want %d", total, n)
	}
	return out
}

// resultsOnceEach waits for one result per record of recs (at most
// timeout), stops the pipelines and fails t for a record with other than
// exactly one result.
func (e *kfakeEnv) resultsOnceEach(t *testing.T, recs []*kgo.Record, timeout time.Duration, stops ...func() error) map[string][]codec.CommandResult {
	t.Helper()
	got := e.results(t, len(recs), timeout)
	for _, stop := range stops {
		if err := stop(); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range recs {
		if n := len(got[string(r.Key)]); n != 1 {
			t.Errorf("%s: %d results, want exactly 1", r.Key, n)
		}
	}
	return got
}

func captureRecord(topics Topics, key, session string) *kgo.Record {
	return &kgo.Record{Topic: topics.Commands[codec.KindCapture], Key: []byte(key),
		Value: fmt.Appendf(nil, `{"session_id":%q}`, session)}
}

func TestRunOneResultPerCommand(t *testing.T) {
	env := newKfakeEnv(t)
	api := &fakeAPI{}
	var recs []*kgo.Record
	for i := range 60 {
		recs = append(recs, captureRecord(env.topics, fmt.Sprintf("key-%04d", i), fmt.Sprintf("ps_%d", i%5)))
	}
	recs = append(recs, &kgo.Record{Topic: env.topics.Commands[codec.KindCapture], Key: []byte("key-bad"), Value: []byte(`{`)})
	for _, r := range recs {
		r.Partition = 0 // one partition keeps offset order = production order
	}
	env.produce(t, recs...)
	stop := env.start(t, api, nil)

	got := env.resultsOnceEach(t, recs, 20*time.Second, stop)
	if s := got["key-bad"][0].Status; s != codec.StatusInvalid {
		t.Errorf("bad record status = %s", s)
	}
	if calls := api.callsTo("session/capture"); len(calls) != 60 {
		t.Errorf("capture calls = %d, want 60 (nothing replayed)", len(calls))
	}
	if v := metricSum(t, env.reg, "paysession_pipeline_dead_letters_total"); v != 1 {
		t.Errorf("dead letters = %v", v)
	}
}

// metricSum sums a counter family's series.
func metricSum(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

func TestRunAbortsWhenOutcomesCannotBeProduced(t *testing.T) {
	env := newKfakeEnv(t)
	api := &fakeAPI{}
	var recs []*kgo.Record
	for i := range 20 {
		recs = append(recs, captureRecord(env.topics, fmt.Sprintf("key-%04d", i), fmt.Sprintf("ps_%d", i)))
	}
	env.produce(t, recs...)
	enc := &jsonCodec{fail: 1}
	stop := env.start(t, api, func(c *Config) { c.Encoder = enc })

	env.resultsOnceEach(t, recs, 20*time.Second, stop)
	if v := metricSum(t, env.reg, "paysession_pipeline_transactions_total"); v < 2 {
		t.Errorf("transactions = %v, want an abort then a commit", v)
	}
	// The aborted batch's outcomes were kept: its redelivered commands
	// were not sent again (replay.go).
	if n := len(api.callsTo("session/capture")); n != len(recs) {
		t.Errorf("capture calls = %d, want %d: each command sent once across the aborted write", n, len(recs))
	}
}

func TestRunParksSlowCommandKeepingSessionOrder(t *testing.T) {
	env := newKfakeEnv(t)
	var mu sync.Mutex
	var order []string
	stuck := true
	api := &fakeAPI{}
	api.handle = func(ctx context.Context, c fakeCall) (*payapi.Session, error) {
		mu.Lock()
		block := c.SessionID == "ps_101" && c.Endpoint == "session/capture" && stuck
		stuck = stuck && !block
		mu.Unlock()
		if block { // the first capture hangs until the batch deadline
			<-ctx.Done()
			return nil, &payapi.Error{Code: "timeout", Retryable: true, Sent: true, Err: ctx.Err()}
		}
		mu.Lock()
		order = append(order, c.SessionID+" "+c.Endpoint)
		mu.Unlock()
		return &payapi.Session{ID: c.SessionID, Status: "in_progress"}, nil
	}
	ct := env.topics.Commands
	recs := []*kgo.Record{
		{Topic: ct[codec.KindCapture], Key: []byte("key-cap"), Value: []byte(`{"session_id":"ps_101"}`)},
		{Topic: ct[codec.KindRefund], Key: []byte("key-ref"), Value: []byte(`{"session_id":"ps_101"}`)},
		{Topic: ct[codec.KindCapture], Key: []byte("key-oth"), Value: []byte(`{"session_id":"ps_202"}`)},
	}
	env.produce(t, recs[0], recs[2])
	stop := env.start(t, api, func(c *Config) { c.BatchDeadline = 500 * time.Millisecond })
	time.Sleep(100 * time.Millisecond) // let the capture start before the refund is produced
	env.produce(t, recs[1])

	got := env.results(t, 3, 20*time.Second)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"key-cap", "key-ref", "key-oth"} {
		if len(got[k]) != 1 || got[k][0].Status != codec.StatusAccepted {
			t.Errorf("%s: %+v", k, got[k])
		}
	}
	if got["key-cap"][0].Attempts != 2 {
		t.Errorf("capture attempts = %d, want 2 (one cut by the deadline)", got["key-cap"][0].Attempts)
	}
	// The second attempt, resumed from the retry topic, counts as a retry.
	if err := testutil.GatherAndCompare(env.reg, strings.NewReader(`
# HELP paysession_pipeline_retries_total API call attempts after a command's first (in the same batch or resumed from the retry topic), by command kind.
# TYPE paysession_pipeline_retries_total counter
paysession_pipeline_retries_total{kind="capture"} 1
`), "paysession_pipeline_retries_total"); err != nil {
		t.Error(err)
	}
	mu.Lock()
	defer mu.Unlock()
	ic, ir := slices.Index(order, "ps_101 session/capture"), slices.Index(order, "ps_101 session/refund")
	if ic < 0 || ir < 0 || ir < ic {
		t.Errorf("order = %v: the refund must follow the capture", order)
	}
}

func TestRunShutdownParksInFlightWork(t *testing.T) {
	env := newKfakeEnv(t)
	started := make(chan struct{}, 1)
	api := &fakeAPI{handle: func(ctx context.Context, c fakeCall) (*payapi.Session, error) {
		select {
		case started <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return nil, &payapi.Error{Code: "timeout", Retryable: true, Sent: true, Err: ctx.Err()}
	}}
	env.produce(t, captureRecord(env.topics, "key-0001", "ps_1"))
	stop := env.start(t, api, func(c *Config) { c.ShutdownGrace = 100 * time.Millisecond; c.BatchDeadline = 4 * time.Second })
	<-started
	t0 := time.Now()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("shutdown took %v", d)
	}
	// The command is parked (committed to the retry topic), not resulted.
	cl, _ := kgo.NewClient(kgo.SeedBrokers(env.seeds...), kgo.ConsumeTopics(env.topics.Retry, env.topics.Results),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	fs := cl.PollFetches(ctx)
	var retry, results int
	fs.EachRecord(func(r *kgo.Record) {
		if r.Topic == env.topics.Retry {
			retry++
		} else {
			results++
		}
	})
	if retry != 1 || results != 0 {
		t.Fatalf("retry records %d, results %d; want 1 and 0", retry, results)
	}
}

func TestRunPausesWhileAPIFails(t *testing.T) {
	env := newKfakeEnv(t)
	var down atomic.Bool
	down.Store(true)
	api := &fakeAPI{}
	api.handle = func(_ context.Context, c fakeCall) (*payapi.Session, error) {
		if down.Load() {
			return nil, &payapi.Error{Code: "http_status", HTTPStatus: 503, Retryable: true, Sent: true}
		}
		return &payapi.Session{ID: c.SessionID, Status: "in_progress"}, nil
	}
	env.produce(t, captureRecord(env.topics, "key-0001", "ps_1"), captureRecord(env.topics, "key-0002", "ps_2"))
	stop := env.start(t, api, func(c *Config) {
		c.PauseAfterFailures = 4
		c.ProbeInterval = 20 * time.Millisecond
		c.Retry.MaxAttempts = 2
	})
	env.results(t, 2, 20*time.Second) // both indeterminate after 2 attempts each
	probes := func() int {
		n := 0
		for _, c := range api.callsTo("session/status") {
			if c.SessionID == probeSessionID {
				n++
			}
		}
		return n
	}
	deadline := time.Now().Add(10 * time.Second)
	for probes() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if probes() < 2 {
		t.Fatalf("no probes while the API was down")
	}
	// Fetching is paused: a new command waits until a probe succeeds.
	env.produce(t, captureRecord(env.topics, "key-0003", "ps_3"))
	time.Sleep(200 * time.Millisecond)
	if n := len(api.callsTo("session/capture")); n != 4 {
		t.Fatalf("capture calls while paused = %d, want 4 (no new command taken)", n)
	}
	down.Store(false)
	got := env.results(t, 3, 20*time.Second)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if s := got["key-0003"][0].Status; s != codec.StatusAccepted {
		t.Fatalf("after recovery: %s", s)
	}
	if s := got["key-0001"][0].Status; s != codec.StatusIndeterminate {
		t.Fatalf("while down: %s", s)
	}
}

func TestRunRebuildsSessionWhenCommitIsUnknown(t *testing.T) {
	env := newKfakeEnv(t)
	var failed atomic.Bool
	env.cluster.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		r := req.(*kmsg.EndTxnRequest)
		if !r.Commit || failed.Swap(true) {
			return nil, nil, false
		}
		resp := r.ResponseKind().(*kmsg.EndTxnResponse)
		resp.ErrorCode = kerr.InvalidTxnState.Code // End fails: the outcome is unknown to the pipeline
		return resp, nil, true
	})
	api := &fakeAPI{}
	var recs []*kgo.Record
	for i := range 10 {
		recs = append(recs, captureRecord(env.topics, fmt.Sprintf("key-%04d", i), fmt.Sprintf("ps_%d", i+1)))
	}
	env.produce(t, recs...)
	stop := env.start(t, api, nil)
	env.resultsOnceEach(t, recs, 30*time.Second, stop)
	if !failed.Load() {
		t.Fatal("EndTxn was never failed")
	}
	if v := metricValue(t, env.reg, "paysession_pipeline_transactions_total", "unknown"); v != 1 {
		t.Errorf("unknown transactions = %v, want 1", v)
	}
}

// metricValue returns the value of the series of a counter family whose only
// label has the given value.
func metricValue(t *testing.T, reg *prometheus.Registry, name, label string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if len(m.GetLabel()) == 1 && m.GetLabel()[0].GetValue() == label {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func TestRunRebalanceAbortsAndNothingDoubles(t *testing.T) {
	env := newKfakeEnv(t)
	started := make(chan struct{}, 1)
	api := &fakeAPI{}
	api.handle = func(ctx context.Context, c fakeCall) (*payapi.Session, error) {
		select {
		case started <- struct{}{}:
		default:
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return nil, &payapi.Error{Code: "timeout", Retryable: true, Sent: true, Err: ctx.Err()}
		}
		return &payapi.Session{ID: c.SessionID, Status: "in_progress"}, nil
	}
	var recs []*kgo.Record
	for i := range 200 {
		recs = append(recs, captureRecord(env.topics, fmt.Sprintf("key-%04d", i), fmt.Sprintf("ps_%d", i%40+1)))
	}
	env.produce(t, recs...)
	stopA := env.start(t, api, func(c *Config) { c.Concurrency = 8 })
	<-started
	stopB := env.start(t, api, func(c *Config) { c.Concurrency = 8; c.TransactionalID = "pipeline-1"; c.Registerer = nil })
	env.resultsOnceEach(t, recs, 60*time.Second, stopA, stopB)
	t.Logf("transactions: %v committed, %v aborted", metricValue(t, env.reg, "paysession_pipeline_transactions_total", "commit"),
		metricValue(t, env.reg, "paysession_pipeline_transactions_total", "abort"))
}

// TestGroupJoined: the readiness check fails before Run, passes once the
// consumer has joined its group, and fails again after Run returns.
func TestGroupJoined(t *testing.T) {
	e := newKfakeEnv(t)
	p := e.pipeline(t, &fakeAPI{}, nil)
	ctx := context.Background()
	if err := p.GroupJoined(ctx); err == nil {
		t.Fatal("GroupJoined before Run = nil; want an error")
	}
	stop := e.run(t, p)
	deadline := time.Now().Add(20 * time.Second)
	for err := p.GroupJoined(ctx); err != nil; err = p.GroupJoined(ctx) {
		if time.Now().After(deadline) {
			t.Fatalf("GroupJoined after 20s: %v", err)
		}
		time.Sleep(20 * time.Millisecond) // polling franz-go's group state; no event exposes the join
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if err := p.GroupJoined(ctx); err == nil {
		t.Fatal("GroupJoined after Run returned = nil; want an error")
	}
}

// TestConsumerLag: while the first batch of a partition is held in the API,
// the lag gauge counts the records behind it; once all are done it is 0.
func TestConsumerLag(t *testing.T) {
	e := newKfakeEnv(t)
	release := make(chan struct{})
	var first sync.Once
	api := &fakeAPI{handle: func(ctx context.Context, c fakeCall) (*payapi.Session, error) {
		first.Do(func() { <-release })
		return &payapi.Session{ID: c.SessionID, Status: "in_progress", UpdatedAt: time.Unix(1, 0)}, nil
	}}
	topic := e.topics.Commands[codec.KindCapture]
	var recs []*kgo.Record
	for i := range 10 {
		recs = append(recs, captureRecord(e.topics, fmt.Sprintf("lag-%d", i), fmt.Sprintf("ps_%d", i)))
	}
	e.produce(t, recs...)
	p := e.pipeline(t, api, func(c *Config) { c.MaxPollRecords = 2 })
	e.run(t, p)
	gauge := p.metrics.lag.WithLabelValues(topic, "0")
	deadline := time.Now().Add(20 * time.Second)
	for testutil.ToFloat64(gauge) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // the poll happens in Run; no event exposes it
	}
	// The first poll took at most 2 of the 10 records (more may be buffered).
	if got := testutil.ToFloat64(gauge); got < 8 || got > 9 {
		t.Errorf("lag while the first batch waits = %v; want 8 (10 records, at most 2 polled)", got)
	}
	close(release)
	e.results(t, 10, 20*time.Second)
	for testutil.ToFloat64(gauge) != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := testutil.ToFloat64(gauge); got != 0 {
		t.Errorf("lag after every command = %v; want 0", got)
	}
}

// TestRunStopsCallingWhileAttemptMarksAreNotAcknowledged: a mark the
// broker does not acknowledge (NOT_ENOUGH_REPLICAS on the attempts topic,
// which franz-go retries for as long as it lasts) ends the batch uncalled
// at the batch deadline, and readiness then names the attempts topic;
// before, the pipeline waited on the mark for as long as the broker
// refused it, calling nothing and looking ready. Once marks are
// acknowledged again every command gets one result, sent once.
func TestRunStopsCallingWhileAttemptMarksAreNotAcknowledged(t *testing.T) {
	env := newKfakeEnv(t)
	var recs []*kgo.Record
	for i := range 5 {
		recs = append(recs, captureRecord(env.topics, fmt.Sprintf("key-%04d", i), fmt.Sprintf("ps_%d", i+1)))
	}
	env.produce(t, recs...)
	var refuse, refused atomic.Bool
	refuse.Store(true)
	// The marks are the only non-transactional produce from here on.
	env.cluster.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		env.cluster.KeepControl()
		r := req.(*kmsg.ProduceRequest)
		if r.TransactionID != nil || !refuse.Load() {
			return nil, nil, false
		}
		refused.Store(true)
		resp := r.ResponseKind().(*kmsg.ProduceResponse)
		for _, rt := range r.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition, sp.ErrorCode = rp.Partition, kerr.NotEnoughReplicas.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	api := &fakeAPI{}
	p := env.pipeline(t, api, nil)
	stop := env.run(t, p)

	deadline := time.Now().Add(30 * time.Second)
	for {
		err := p.Writable(context.Background())
		if err != nil && strings.Contains(err.Error(), env.topics.Attempts) {
			if !strings.Contains(err.Error(), "not acknowledged within") {
				t.Errorf("readiness names %s but not why: %v", env.topics.Attempts, err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readiness while no mark is acknowledged: %v (refused a mark: %v); want an error naming %s",
				err, refused.Load(), env.topics.Attempts)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(api.callsTo("session/capture")); n != 0 {
		t.Errorf("%d API calls while no attempt mark was acknowledged; want none", n)
	}
	refuse.Store(false)
	env.resultsOnceEach(t, recs, 30*time.Second, stop)
	if n := len(api.callsTo("session/capture")); n != len(recs) {
		// The marks' outage rebuilt the Kafka session; the revoke of the old
		// session's Close must not abort the new session's first batch.
		t.Errorf("capture calls = %d, want %d: each command sent once", n, len(recs))
	}
}
