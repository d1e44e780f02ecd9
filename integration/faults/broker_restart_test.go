package faults_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
)

// TestBrokerRestart is scenario 2: the Kafka broker (a private single-node
// broker of this test) is SIGKILLed and started again on the same data
// directory and ports while the connector executes payouts. Each kill
// waits until the sandbox's execution count passes a seeded threshold, then
// for one of two moments, alternately:
//
//   - "open txn": the results topic holds records of a transaction not yet
//     committed (high watermark above the last stable offset): the broker
//     dies with the connector's transaction open on the broker, usually
//     while the connector ends it;
//   - "calls": API calls of a batch are in flight
//     (paysession_pipeline_in_flight > 0): the connector's transaction has
//     begun and its outcomes are not produced yet.
//
// The connector must ride out every broker restart: the test restarts it
// only if it exited, and then fails (the restarts column counts such
// exits). Before commit a3ed635 it did exit, one second after an "open txn"
// kill: End failed, the session was rebuilt, InitProducerID found no broker
// and Pipeline.Run returned the error. In window counts keys executed by
// the time of a kill whose result was not committed then (at or past the
// last stable offset read just before the kill). Pass: nothing executed
// twice, no missing or duplicate result (read_committed).
func TestBrokerRestart(t *testing.T) {
	t.Parallel()
	n := size("FAULTS_BROKER_COMMANDS", 200, 3_000)
	restarts := size("FAULTS_BROKER_RESTARTS", 2, 6)
	webhooks := os.Getenv("FAULTS_BROKER_WEBHOOKS") != "0"
	// FAULTS_BROKER_DOWN keeps the broker down that long before restarting
	// it (default 0: restart at once, a restart takes 10-20 s on 2 cores);
	// longer than the transaction timeout (30 s here) lets the broker abort
	// the open transaction itself.
	down, _ := time.ParseDuration(os.Getenv("FAULTS_BROKER_DOWN"))
	seed := seed()
	t.Logf("scenario 2: %d commands, %d broker restarts, extra downtime %v, webhooks %v, seed %d", n, restarts, down,
		webhooks, seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	start := time.Now()
	broker := harness.StartTestBroker(t, nil)
	t.Logf("private broker %s in %s (log %s)", broker.Addr(), broker.Dir(), broker.LogPath())
	r := NewRig(t, RigOptions{
		Brokers: []string{broker.Addr()},
		// The sandbox's webhooks go to the connector, so they also arrive
		// while the broker is down (a 503 or a timed-out attempt, redelivered
		// later); FAULTS_BROKER_WEBHOOKS=0 unwires them.
		Webhooks: webhooks,
		// Calls take 20-70 ms and at most 8 run at once (batches of 16), so
		// a batch's calls are in flight most of the time and the flow lasts
		// long enough to restart the broker in its middle.
		SandboxFlags: []string{"-latency", "20ms", "-latency-jitter", "50ms", "-seed", strconv.FormatUint(seed, 10)},
		Env: map[string]string{
			"PAYSESSION_KAFKA_INSTANCE_ID":      "broker-restart",
			"PAYSESSION_PIPELINE_MAX_IN_FLIGHT": "8",
		},
	})
	t.Logf("rig ready after %v", time.Since(start).Round(time.Millisecond))
	r.Produce(t, payoutsPrefixed("brk", r.ID, 0, n)...)
	exits := 0
	var marks []killMark
	next := 0
	for i := range restarts {
		// Seeded threshold inside this restart's share of the flow, and
		// always ahead of what has executed already.
		share := n / (restarts + 1)
		threshold := max((i+1)*share-share/2+rng.IntN(max(1, share)), next)
		awaitExecutions(t, r, threshold, 3*time.Minute)
		moment := "calls"
		if i%2 == 0 {
			moment = "open txn"
		}
		var (
			evidence string
			stable   map[int32]int64
		)
		if moment == "open txn" {
			evidence, stable = awaitOpenTransaction(t, r, 20*time.Second)
		} else {
			evidence = awaitInFlight(t, r.Connector, 20*time.Second)
			_, stable = resultsOffsets(t, r)
		}
		if err := broker.Kill(); err != nil {
			t.Fatalf("kill broker: %v", err)
		}
		killed := time.Now()
		mark := killMark{executed: map[string]bool{}, ends: stable}
		for _, x := range r.Sandbox.Executions(t) {
			mark.executed[x.IdempotencyKey] = true
		}
		marks = append(marks, mark)
		t.Logf("broker kill %d at %v (%s: %s): %d calls executed", i+1, time.Since(start).Round(time.Millisecond),
			moment, evidence, len(mark.executed))
		if down > 0 {
			time.Sleep(down) // the outage itself (FAULTS_BROKER_DOWN), not a wait for a condition
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		err := broker.Restart(ctx)
		cancel()
		if err != nil {
			t.Fatalf("restart broker: %v", err)
		}
		t.Logf("broker restart %d: up again after %v", i+1, time.Since(killed).Round(time.Millisecond))
		recovering := time.Now()
		if awaitRecovered(t, r, stable, 3*time.Minute) {
			t.Logf("broker restart %d: the connector committed again %v after the broker was up", i+1,
				time.Since(recovering).Round(time.Millisecond))
		} else {
			exits++
			t.Errorf("connector exited after broker restart %d (a production connector should ride it out); "+
				"restarting it. Last log lines:\n%s", i+1, r.Connector.Tail(15))
			r.Connector.Restart(t)
			if !awaitRecovered(t, r, stable, 3*time.Minute) {
				t.Fatalf("restarted connector exited again\n%s", r.Connector.Tail(30))
			}
		}
		next = len(mark.executed) + 1 + share/4
	}
	r.Outcomes.AwaitAnswered(t, r.Produced, 5*time.Minute)
	if webhooks {
		fireWebhookRetries(t, r)
	}
	cut := metricValue(t, r.Connector, "paysession_pipeline_transactions_total", `result="abort"`) +
		metricValue(t, r.Connector, "paysession_pipeline_transactions_total", `result="unknown"`)
	t.Logf("connector transactions: commit %.0f, abort+unknown %.0f (since its last start); log lines: %v",
		metricValue(t, r.Connector, "paysession_pipeline_transactions_total", `result="commit"`), cut,
		logLines(r.Connector.Process, "transaction end unknown", "producing outcomes failed", "transaction aborted",
			"kafka session could not start",
			"rebuilding kafka session", "level=ERROR"))
	row := Oracle(t, r, Row{Scenario: "2 broker restart", Seed: seed, Kills: restarts, Restarts: exits}, acceptedOnce)
	results := r.Outcomes.Results()
	row.InWindow = inWindow(results, marks)
	t.Logf("results by producer: %s", producerCounts(resultProducers(t, r, results)))
	row.WallSeconds = time.Since(start).Seconds()
	Check(t, row)
	if row.InWindow == 0 {
		t.Errorf("no broker kill fell between an execution and the commit of its result (in window 0)")
	}
}

// payoutsPrefixed returns count init_payout commands with keys
// <prefix>-<id>-<i>.
func payoutsPrefixed(prefix, id string, from, count int) []Command {
	cmds := payouts(id, from, count)
	for i := range cmds {
		cmds[i].Key = fmt.Sprintf("%s-%s-%06d", prefix, id, from+i)
		cmds[i].Value = Payout(int64(10_000+from+i), cmds[i].Key)
	}
	return cmds
}

// resultsOffsets returns the high watermarks and the last stable offsets
// of the results topic's partitions (nil maps when the broker did not
// answer).
func resultsOffsets(t testing.TB, r *Rig) (high, stable map[int32]int64) {
	t.Helper()
	topic := r.Topics["PAYSESSION_TOPIC_COMMAND_RESULTS"]
	adm := kadm.NewClient(r.Client)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hw, err1 := adm.ListEndOffsets(ctx, topic)
	ls, err2 := adm.ListCommittedOffsets(ctx, topic)
	if err1 != nil || err2 != nil || hw.Error() != nil || ls.Error() != nil {
		return nil, nil
	}
	high, stable = map[int32]int64{}, map[int32]int64{}
	hw.Each(func(o kadm.ListedOffset) { high[o.Partition] = o.Offset })
	ls.Each(func(o kadm.ListedOffset) { stable[o.Partition] = o.Offset })
	return high, stable
}

// awaitOpenTransaction polls the results topic until a partition holds
// records of a transaction not yet committed (high watermark above the last
// stable offset) and returns what it saw and the last stable offsets; after
// timeout it says it saw none (the kill then lands anyway).
func awaitOpenTransaction(t testing.TB, r *Rig, timeout time.Duration) (string, map[int32]int64) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var stable map[int32]int64
	for time.Now().Before(deadline) {
		var high map[int32]int64
		high, stable = resultsOffsets(t, r)
		var open []string
		for p, h := range high {
			if s, ok := stable[p]; ok && h > s {
				open = append(open, fmt.Sprintf("results partition %d: high watermark %d > last stable offset %d", p, h, s))
			}
		}
		if len(open) > 0 {
			sort.Strings(open)
			return "open transaction on the broker, " + strings.Join(open, ", "), stable
		}
		time.Sleep(time.Millisecond) // polling the broker: an open transaction has no signal
	}
	t.Logf("no open transaction seen on the results topic within %v; killing anyway", timeout)
	return "no open transaction seen", stable
}

// awaitInFlight polls the connector's metrics until API calls of a batch
// are in flight (its transaction has begun and not ended) and says how
// many; after timeout it says it saw none (the kill then lands anyway).
func awaitInFlight(t testing.TB, c *Connector, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if n := metricValue(t, c, "paysession_pipeline_in_flight", ""); n > 0 {
			return fmt.Sprintf("%.0f API calls in flight in the open batch", n)
		}
		time.Sleep(time.Millisecond) // polling the connector's metrics: there is no signal to await
	}
	t.Logf("no API call in flight within %v; killing anyway", timeout)
	return "no call in flight seen"
}

// fireWebhookRetries moves the sandbox's clock past the 30 minutes after
// which it stops retrying a webhook, so that every webhook refused or
// timed out while the broker (or the receiving connector) was down is
// redelivered now, and waits until every delivered webhook is on the
// webhook-events topic.
func fireWebhookRetries(t testing.TB, r *Rig) {
	t.Helper()
	r.Sandbox.WaitIdle(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.Sandbox.URL+"/admin/clock/advance",
		strings.NewReader(`{"seconds":1860}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("paysim clock advance: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("paysim clock advance: %s", resp.Status)
	}
	r.Sandbox.WaitIdle(t)
	states, answers := map[string]int{}, map[string]int{}
	for _, d := range r.Sandbox.Webhooks(t) {
		states[d.State]++
		for _, a := range d.Attempts {
			if a.Error != "" {
				answers["error"]++
			} else {
				answers[strconv.Itoa(a.StatusCode)]++
			}
		}
	}
	t.Logf("sandbox webhooks: deliveries by state %v, attempts by answer %v", states, answers)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		expected, published, _ := webhookCounts(t, r)
		if published >= expected {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d of %d delivered webhooks on the webhook-events topic after 2m", published, expected)
			return
		}
		time.Sleep(100 * time.Millisecond) // polling the outcome reader
	}
}

// awaitRecovered waits until the connector commits results again after a
// broker restart: a last stable offset of the results topic moves past
// stable, its value at the kill (true). It reports false when the
// connector exited instead.
func awaitRecovered(t testing.TB, r *Rig, stable map[int32]int64, timeout time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if !r.Connector.Running() {
			return false
		}
		_, now := resultsOffsets(t, r)
		for p, o := range now {
			if o > stable[p] {
				return true
			}
		}
		if len(answered(r.Produced, r.Outcomes.Results(), r.Outcomes.DeadLetters())) == len(r.Produced) {
			return true // nothing left to commit
		}
		if time.Now().After(deadline) {
			t.Fatalf("connector committed nothing %v after the broker restart\n%s", timeout, r.Connector.Tail(30))
		}
		time.Sleep(50 * time.Millisecond) // polling the broker: a commit has no signal here
	}
}

// metricValue scrapes the connector's /metrics and returns the sum of the
// samples of name whose labels contain labels ("" for all); 0 when absent.
func metricValue(t testing.TB, c *Connector, name, labels string) float64 {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(c.OpsURL + "/metrics")
	if err != nil {
		t.Logf("scrape %s/metrics: %v", c.OpsURL, err)
		return 0
	}
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name) || len(line) == len(name) || (line[len(name)] != '{' && line[len(name)] != ' ') {
			continue
		}
		if labels != "" && !strings.Contains(line, labels) {
			continue
		}
		fields := strings.Fields(line)
		if v, err := strconv.ParseFloat(fields[len(fields)-1], 64); err == nil {
			sum += v
		}
	}
	return sum
}

// producerOf is the transactional producer (id and epoch) that wrote a
// result record.
type producerOf struct {
	ID    int64
	Epoch int16
}

// resultProducers reads the results topic from the start with
// read_committed until it has seen every result in results, and returns the
// producer (id, epoch) of each by the record's own position: which
// connector incarnation committed it.
func resultProducers(t testing.TB, r *Rig, results []Result) map[Position]producerOf {
	t.Helper()
	topic := r.Topics["PAYSESSION_TOPIC_COMMAND_RESULTS"]
	want := map[Position]bool{}
	for _, res := range results {
		want[res.At] = true
	}
	out := map[Position]producerOf{}
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.Brokers...), kgo.ConsumeTopics(topic),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for len(want) > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("read the producers of %s: %v (%d results not read again)", topic, err, len(want))
		}
		fs.EachRecord(func(rec *kgo.Record) {
			at := Position{rec.Topic, rec.Partition, rec.Offset}
			out[at] = producerOf{rec.ProducerID, rec.ProducerEpoch}
			delete(want, at)
		})
	}
	return out
}

// producerCounts describes how many results each producer id wrote and
// over which epochs (a Kafka 4 broker bumps a transactional producer's
// epoch at every transaction, and an InitProducerID bumps it too).
func producerCounts(producers map[Position]producerOf) string {
	type span struct {
		n          int
		from, upto int16
	}
	by := map[int64]*span{}
	for _, p := range producers {
		s := by[p.ID]
		if s == nil {
			s = &span{from: p.Epoch, upto: p.Epoch}
			by[p.ID] = s
		}
		s.n++
		s.from, s.upto = min(s.from, p.Epoch), max(s.upto, p.Epoch)
	}
	ids := make([]int64, 0, len(by))
	for id := range by {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("producer %d: %d results, epochs %d..%d", id, by[id].n, by[id].from, by[id].upto)
	}
	return strings.Join(parts, "; ")
}

// logLines returns how many lines of the process's log contain each of
// the substrings.
func logLines(p *Process, subs ...string) map[string]int {
	out := map[string]int{}
	b, err := os.ReadFile(p.Log())
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		for _, s := range subs {
			if strings.Contains(line, s) {
				out[s]++
			}
		}
	}
	return out
}
