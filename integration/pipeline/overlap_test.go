package pipeline_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/pipeline"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
)

// holdProxy holds the API requests of chosen idempotency keys until they
// are released or their caller gives up, and counts the requests it held.
type holdProxy struct {
	next    http.Handler
	mu      sync.Mutex
	held    map[string]int // requests seen per held key
	release chan struct{}
}

func (h *holdProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("X-PARTNER-IDEMPOTENCY-KEY")
	h.mu.Lock()
	_, hold := h.held[key]
	if hold {
		h.held[key]++
	}
	h.mu.Unlock()
	if hold {
		select {
		case <-h.release:
		case <-r.Context().Done():
			return // the pipeline cancelled the call: nothing was executed
		}
	}
	h.next.ServeHTTP(w, r)
}

func (h *holdProxy) requests(key string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.held[key]
}

// TestRevokeMidOverlapCommitsNothingUndone: a batch runs right after the
// previous transaction committed (its poll, marks and calls overlap that
// transaction's completion); a rebalance revokes the partitions while some
// of its calls are still running. The open transaction must abort: no
// result of the batch is committed, neither for the calls still running
// (work not done) nor for those already answered, while the previous
// transaction's results stay committed once. After the calls are released
// every command has exactly one result and the service executed each once.
func TestRevokeMidOverlapCommitsNothingUndone(t *testing.T) {
	e := newEnv(t, envOptions{kinds: []codec.CommandKind{codec.KindInitPayment}, partitions: 2})
	hold := &holdProxy{next: e.proxy.next, held: map[string]int{}, release: make(chan struct{})}
	e.proxy.next = hold // before any pipeline runs

	var done, open, held []string
	for i := range 4 {
		done = append(done, fmt.Sprintf("overlap-%s-done-%d", e.id, i))
		open = append(open, fmt.Sprintf("overlap-%s-open-%d", e.id, i))
	}
	for i := range 2 {
		k := fmt.Sprintf("overlap-%s-held-%d", e.id, i)
		held = append(held, k)
		hold.held[k] = 0
	}
	records := func(keys []string, amount int) []*kgo.Record { return e.paymentsOnTwoPartitions(keys, amount) }
	// The batch must still run when the revoke comes (a heartbeat later),
	// not be cut by its deadline first.
	const batchDeadline = 12 * time.Second
	// Eager rebalancing: a member joining revokes every partition of A.
	eager := kgo.Balancers(kgo.RoundRobinBalancer())
	regA := prometheus.NewRegistry()
	e.start(t, func(c *pipeline.Config) {
		c.Kafka = append(c.Kafka, eager)
		c.BatchDeadline = batchDeadline
		c.Registerer = regA
	})

	// Transaction N: committed.
	e.cl = harness.NewClient(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	e.produce(t, records(done, 1000)...)
	for _, k := range done {
		e.out.result(t, k, time.Minute)
	}
	// The next batch: held calls beside calls that complete.
	e.produce(t, append(records(held, 2000), records(open, 3000)...)...)
	harness.Eventually(t, time.Minute, "held calls started", func() bool {
		return hold.requests(held[0]) > 0 && hold.requests(held[1]) > 0
	})
	// B joins: A's partitions are revoked in the middle of the batch.
	e.joinB(t, regA, batchDeadline, eager)
	// Redelivered, the held commands are called again (and held again).
	harness.Eventually(t, time.Minute, "held commands redelivered", func() bool {
		return hold.requests(held[0]) > 1 && hold.requests(held[1]) > 1
	})
	e.out.mu.Lock()
	for _, k := range held {
		if n := len(e.out.results[k]); n != 0 {
			t.Errorf("%s: %d results committed while its call never completed; want none", k, n)
		}
	}
	for _, k := range done {
		if n := len(e.out.results[k]); n != 1 {
			t.Errorf("%s: %d results after the revoke; want the committed one only", k, n)
		}
	}
	e.out.mu.Unlock()

	close(hold.release)
	all := append(append(append([]string{}, done...), open...), held...)
	e.allPaidOnce(t, all)
}

// bufferedHook closes seen once the client has fetched a record with key.
type bufferedHook struct {
	key  string
	once sync.Once
	seen chan struct{}
}

func (h *bufferedHook) OnFetchRecordBuffered(r *kgo.Record) {
	if string(r.Key) == h.key {
		h.once.Do(func() { close(h.seen) })
	}
}

// TestAbortOfBatchPolledAheadRedeliversIt: batch N's calls are held while
// the next records are fetched, so that when N ends the pipeline polls them
// ahead and their calls run while N's transaction ends (and commits N's
// offsets only). Then a cooperative rebalance takes one of A's two
// partitions away while those calls are held: the batch polled ahead aborts.
// On the partition A keeps, the client alone would resume after the aborted
// batch (it took everything it had polled when N ended as committed); the
// pipeline rewinds to the batch's first record, so every command still ends
// once and the service executes each once.
func TestAbortOfBatchPolledAheadRedeliversIt(t *testing.T) {
	e := newEnv(t, envOptions{kinds: []codec.CommandKind{codec.KindInitPayment}, partitions: 2})
	var first, ahead []string
	for i := range 4 {
		first = append(first, fmt.Sprintf("ahead-%s-first-%d", e.id, i))
		ahead = append(ahead, fmt.Sprintf("ahead-%s-next-%d", e.id, i))
	}
	holdFirst := &holdProxy{next: e.proxy.next, held: map[string]int{}, release: make(chan struct{})}
	holdAhead := &holdProxy{next: holdFirst, held: map[string]int{}, release: make(chan struct{})}
	for _, k := range first {
		holdFirst.held[k] = 0
	}
	for _, k := range ahead {
		holdAhead.held[k] = 0
	}
	e.proxy.next = holdAhead // before any pipeline runs
	records := func(keys []string, amount int) []*kgo.Record { return e.paymentsOnTwoPartitions(keys, amount) }
	const batchDeadline = 12 * time.Second // held calls are revoked, not parked
	fetched := &bufferedHook{key: ahead[len(ahead)-1], seen: make(chan struct{})}
	regA := prometheus.NewRegistry()
	e.start(t, func(c *pipeline.Config) {
		c.BatchDeadline = batchDeadline
		c.Registerer = regA
		c.ClientHooks = func() []kgo.Hook { return []kgo.Hook{fetched} }
	})

	e.cl = harness.NewClient(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	e.produce(t, records(first, 1000)...)
	harness.Eventually(t, time.Minute, "batch N's calls held", func() bool {
		for _, k := range first {
			if holdFirst.requests(k) == 0 {
				return false
			}
		}
		return true
	})
	e.produce(t, records(ahead, 2000)...)
	select {
	case <-fetched.seen:
	case <-time.After(time.Minute):
		t.Fatal("the next records were not fetched while batch N ran")
	}
	aheadBefore := counter0(t, regA, "paysession_pipeline_batches_ahead_total")
	close(holdFirst.release)
	for _, k := range first {
		e.out.result(t, k, time.Minute)
	}
	harness.Eventually(t, time.Minute, "the next batch's calls held", func() bool {
		for _, k := range ahead {
			if holdAhead.requests(k) == 0 {
				return false
			}
		}
		return true
	})
	if n := counter0(t, regA, "paysession_pipeline_batches_ahead_total"); n <= aheadBefore {
		t.Fatalf("batches polled ahead: %v, want more than %v (the next batch was not polled while N ended)", n, aheadBefore)
	}
	// B joins: the default cooperative balancer moves one partition to B.
	e.joinB(t, regA, batchDeadline)
	// Both partitions' held commands are called again: by B, and by A after its rewind.
	harness.Eventually(t, time.Minute, "held commands redelivered on both partitions", func() bool {
		for _, k := range ahead {
			if holdAhead.requests(k) < 2 {
				return false
			}
		}
		return true
	})
	close(holdAhead.release)
	all := append(append([]string{}, first...), ahead...)
	e.allPaidOnce(t, all)
}

// paymentsOnTwoPartitions returns an init_payment command per key, with
// amounts from amount up, alternating between partitions 0 and 1.
func (e *env) paymentsOnTwoPartitions(keys []string, amount int) []*kgo.Record {
	var recs []*kgo.Record
	for i, k := range keys {
		r := e.command(codec.KindInitPayment, k, initPaymentJSON(cardSuccess, amount+i))
		r.Partition = int32(i % 2)
		recs = append(recs, r)
	}
	return recs
}

// allPaidOnce waits until every key has a result and the sandbox booked
// every payment (it books one when it completes, after its answer), then
// checks that each command ended once and was executed once.
func (e *env) allPaidOnce(t *testing.T, keys []string) {
	t.Helper()
	for _, k := range keys {
		e.out.result(t, k, time.Minute)
	}
	harness.Eventually(t, time.Minute, "every payment booked", func() bool {
		n := 0
		for _, l := range e.sim.Ledger("") {
			if l.Kind == "payment" {
				n++
			}
		}
		return n >= len(keys)
	})
	e.checkExactlyOnce(t, keys)
}

// joinB starts a second pipeline, B, in A's group and waits until A (whose
// metrics regA holds) has aborted a transaction since.
func (e *env) joinB(t *testing.T, regA *prometheus.Registry, batchDeadline time.Duration, opts ...kgo.Opt) {
	t.Helper()
	aborts := counter(t, regA, "paysession_pipeline_transactions_total", "abort")
	e.start(t, func(c *pipeline.Config) {
		c.Kafka = append(append(c.Kafka, opts...), kgo.InstanceID("pipeline-"+e.id+"-b"))
		c.TransactionalID = "pipeline-" + e.id + "-b"
		c.BatchDeadline = batchDeadline
		c.Registerer = prometheus.NewRegistry()
	})
	harness.Eventually(t, time.Minute, "A aborts its open transaction", func() bool {
		return counter(t, regA, "paysession_pipeline_transactions_total", "abort") > aborts
	})
}

// counter0 returns the value of an unlabelled counter (0 when absent).
func counter0(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	return 0
}

// counter returns the value of a counter family's series whose only label
// has the given value (0 when absent).
func counter(t *testing.T, reg *prometheus.Registry, name, label string) float64 {
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
