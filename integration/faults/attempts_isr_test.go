package faults_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
)

// TestAttemptMarksNotAcknowledged is scenario 9 (issue 20, the bug of
// session 7): the attempts topic has two replicas on two brokers and
// min.insync.replicas=2, the other topics one replica on the first broker.
// The second broker is killed, so the broker answers every attempt-mark
// write NOT_ENOUGH_REPLICAS, a retriable error the client would retry
// forever, while every other topic stays writable. Of the payouts produced
// then, only those that marks written before the kill already cover may be
// sent to the API (a mark covers the next lookahead offsets of its
// partition: 2 × PIPELINE_MAX_IN_FLIGHT, here 2); /readyz must answer 503
// naming the attempts topic, and once the broker is back every payout must
// be accepted exactly once, by the same connector process.
func TestAttemptMarksNotAcknowledged(t *testing.T) {
	t.Parallel()
	n := size("FAULTS_ISR_COMMANDS", 30, 300) // per phase
	// The pipeline stops, and /readyz fails, after 3 aborted batches
	// (pipeline.Config.WriteFailureThreshold), each ending when its marks
	// are not acknowledged within PIPELINE_BATCH_DEADLINE (3 s here).
	unready := time.Duration(size("FAULTS_ISR_UNREADY_SECONDS", 60, 60)) * time.Second
	recovery := time.Duration(size("FAULTS_ISR_RECOVERY_SECONDS", 90, 300)) * time.Second
	seed := seed()
	t.Logf("scenario 9: %d payouts per phase, the attempts topic under its min.insync.replicas until /readyz fails (at most %v), seed %d", n, unready, seed)
	// A fenced broker leaves the ISRs once the controller misses its
	// heartbeats: in 3 s rather than 9.
	props := map[string]string{"broker.session.timeout.ms": "3000", "broker.heartbeat.interval.ms": "1000"}
	first := harness.StartTestBroker(t, props)
	binary(t, "paysim")
	start := time.Now()
	warmInternalTopics(t, first.Addr()) // on the first broker, before the second exists
	r := NewRig(t, RigOptions{Brokers: []string{first.Addr()}, CountAPICalls: true,
		Env: map[string]string{"PAYSESSION_PIPELINE_BATCH_DEADLINE": "3s", "PAYSESSION_PIPELINE_MAX_IN_FLIGHT": "1"}})
	second := harness.JoinTestBroker(t, first, props)
	attempts := r.Topics["PAYSESSION_TOPIC_ATTEMPTS"]
	replicate(t, r, attempts, []int32{1, 2})
	t.Logf("rig ready at %v; %s on nodes 1 and 2, min.insync.replicas=2", time.Since(start).Round(time.Millisecond), attempts)

	phase := payoutPhases(t, r, "isr", n, 50_000)
	phase("before")
	r.Outcomes.AwaitAnswered(t, r.Produced, 2*time.Minute)
	t.Logf("before: %d payouts answered at %v", n, time.Since(start).Round(time.Millisecond))

	if err := second.Kill(); err != nil {
		t.Fatal(err)
	}
	awaitISR(t, r, attempts, []int32{1})
	killed := time.Now()
	t.Logf("node 2 killed; %s in sync on node 1 alone at %v", attempts, time.Since(start).Round(time.Millisecond))
	during := phase("during")
	logAt := logSize(t, r)
	var polls, failed, unnamed int
	var firstFailed time.Duration
	var readyz string
	for deadline := time.Now().Add(unready); failed == 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond) // polling another process: no signal to await
		status, body := r.Connector.Readyz()
		polls++
		switch {
		case status == http.StatusServiceUnavailable && strings.Contains(body, attempts):
			firstFailed, readyz = time.Since(killed), body
			failed++
		case status != http.StatusOK:
			unnamed++
		}
	}
	sent := r.APICalls.PerKey()
	var sentDuring int
	for _, c := range during {
		sentDuring += sent[c.Key]
	}
	mentions := strings.Count(string(logSince(t, r, logAt)), attempts)
	t.Logf("while %s could not be written: /readyz polled %d times until it answered 503 naming it, %v after the ISR shrank (other failures %d): %s; %d API requests for the %d payouts produced meanwhile",
		attempts, polls, firstFailed.Round(time.Millisecond), unnamed, strings.TrimSpace(readyz), sentDuring, len(during))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := second.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	awaitISR(t, r, attempts, []int32{1, 2})
	restarted := time.Now()
	t.Logf("node 2 back, %s in sync on both at %v", attempts, time.Since(start).Round(time.Millisecond))
	recoverFromOutage(t, r, outageEnd{scenario: "9 attempt marks refused", seed: seed, start: start,
		ended: restarted, what: "node 2 came back", recovery: recovery, readyzFailed: failed})
	if covered := int(describeTopic(t, r, r.Topics["PAYSESSION_TOPIC_INIT_PAYOUT"]).partitions) * lookahead; sentDuring > covered {
		t.Errorf("%d API requests for the payouts produced while the attempts topic could not be written; want at most %d, those the marks written before covered (a call starts only after its mark is acknowledged)",
			sentDuring, covered)
	}
	if failed > 0 && !strings.Contains(readyz, "not acknowledged within 3s") {
		t.Errorf("/readyz names %s but not why: %s", attempts, readyz)
	}
	if failed == 0 {
		t.Errorf("/readyz did not answer 503 naming %s within %v of its ISR shrinking (%d polls, %d other failures)", attempts, unready, polls, unnamed)
	}
	if mentions == 0 {
		t.Errorf("the connector's log does not name %s while it could not be written", attempts)
	}
}

// lookahead is how many offsets past the last one called an attempt mark
// covers with PIPELINE_MAX_IN_FLIGHT=1 (pipeline.Config.MaxPollRecords,
// 2 × the concurrency).
const lookahead = 2

// warmInternalTopics makes the broker at addr create its consumer-offsets
// and transaction-state topics now (a coordinator lookup creates them), so
// that they have their replica on that broker and not on one that joins
// later.
func warmInternalTopics(t testing.TB, addr string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	harness.Eventually(t, time.Minute, "group and transaction coordinators of "+addr, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return adm.FindGroupCoordinators(ctx, "warm").Error() == nil && adm.FindTxnCoordinators(ctx, "warm").Error() == nil
	})
}

// replicate moves every partition of topic onto nodes (leader first), waits
// until all of them are in sync and sets min.insync.replicas to their
// number.
func replicate(t testing.TB, r *Rig, topic string, nodes []int32) {
	t.Helper()
	adm := kadm.NewClient(r.Client)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	md, err := adm.Metadata(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	req := kadm.AlterPartitionAssignmentsReq{}
	for p := range md.Topics[topic].Partitions {
		req.Assign(topic, p, nodes)
	}
	resp, err := adm.AlterPartitionAssignments(ctx, req)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatalf("reassign %s to %v: %v", topic, nodes, err)
	}
	awaitISR(t, r, topic, nodes)
	alter, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "min.insync.replicas", Value: kadm.StringPtr(fmt.Sprint(len(nodes)))}}, topic)
	if err == nil {
		var a kadm.AlterConfigsResponse
		if a, err = alter.On(topic, nil); err == nil {
			err = a.Err
		}
	}
	if err != nil {
		t.Fatalf("min.insync.replicas of %s: %v", topic, err)
	}
}

// awaitISR waits until every partition of topic has exactly the in-sync
// replicas isr.
func awaitISR(t testing.TB, r *Rig, topic string, isr []int32) {
	t.Helper()
	adm := kadm.NewClient(r.Client)
	harness.Eventually(t, time.Minute, fmt.Sprintf("%s in sync on %v", topic, isr), func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		md, err := adm.Metadata(ctx, topic)
		if err != nil || md.Topics[topic].Err != nil || len(md.Topics[topic].Partitions) == 0 {
			return false
		}
		for _, p := range md.Topics[topic].Partitions {
			got := slices.Clone(p.ISR)
			slices.Sort(got)
			if !slices.Equal(got, isr) {
				return false
			}
		}
		return true
	})
}
