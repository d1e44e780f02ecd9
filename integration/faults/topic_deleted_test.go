package faults_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
)

// maxSendsPerKey bounds the API requests of one idempotency key across an
// outage: a produce failure may cost a few aborted transactions, each of
// which re-runs its batch's calls, before the connector parks new work.
const maxSendsPerKey = 3

// TestOutcomeTopicDeleted is scenario 6 (issue 13): the command-results
// topic is deleted with kadm while payouts flow and recreated with the same
// partitions, replication and configs 20 s later (FAULTS_TOPIC_OUTAGE_SECONDS;
// at both sizes: an outage much shorter than that can end before a write
// fails). Payouts are produced in three phases:
//
//   - before: answered before the deletion (their results are read before
//     the topic goes, and are not read again);
//   - during: produced just before the deletion while the counting proxy
//     holds every API request until the topic is gone, so that none of
//     their results can be committed to the deleted topic;
//   - outage: produced while the topic is missing.
//
// While the topic is missing, /readyz is polled: it must answer 503 naming
// the topic, and the connector's log must name it. After the recreation
// the connector must recover by itself (no restart, /readyz 200 again),
// every payout must be accepted exactly once with its key's session, none
// executed twice, and no key sent to the API more than maxSendsPerKey
// times (a counting proxy sits between the connector and the sandbox:
// idempotent replays are not executions but are sends).
func TestOutcomeTopicDeleted(t *testing.T) {
	t.Parallel()
	n := size("FAULTS_TOPIC_COMMANDS", 30, 600) // per phase
	// 20 s at both sizes: the produce client retries an unknown topic for
	// about 10 s before a write fails, and the connector needs a few failed
	// writes before /readyz may fail; a shorter outage can end unseen.
	outage := time.Duration(size("FAULTS_TOPIC_OUTAGE_SECONDS", 20, 20)) * time.Second
	recovery := time.Duration(size("FAULTS_TOPIC_RECOVERY_SECONDS", 60, 300)) * time.Second
	seed := seed()
	t.Logf("scenario 6: %d payouts per phase, results topic missing for %v, seed %d", n, outage, seed)
	brokers := harness.Kafka(t)
	binary(t, "paysim")
	start := time.Now()
	r := NewRig(t, RigOptions{Brokers: brokers, CountAPICalls: true})
	results := r.Topics["PAYSESSION_TOPIC_COMMAND_RESULTS"]
	phase := payoutPhases(t, r, "gone", n, 40_000)

	t.Logf("rig ready at %v", time.Since(start).Round(time.Millisecond))
	phase("before")
	r.Outcomes.AwaitAnswered(t, r.Produced, 2*time.Minute)
	t.Logf("before: %d payouts answered at %v", n, time.Since(start).Round(time.Millisecond))

	r.APICalls.Hold() // no result of the next phase can be committed before the topic is gone
	during := phase("during")
	settings := describeTopic(t, r, results)
	logAt := logSize(t, r)
	deleteTopic(t, r, results)
	r.APICalls.Release()
	t.Logf("deleted %s at %v, %d payouts in flight", results, time.Since(start).Round(time.Millisecond), len(during))
	missing := time.NewTimer(outage) // the fault: how long the topic stays deleted
	deleted := time.Now()
	phase("outage")
	var polls, failed, unnamed int
	var firstFailed time.Duration
	for waiting := true; waiting; {
		select {
		case <-missing.C:
			waiting = false
		case <-time.After(100 * time.Millisecond): // polling another process: no signal to await
			status, body := r.Connector.Readyz()
			polls++
			switch {
			case status == http.StatusServiceUnavailable && strings.Contains(body, results):
				if failed == 0 {
					firstFailed = time.Since(deleted)
				}
				failed++
			case status != http.StatusOK:
				unnamed++
			}
		}
	}
	t.Logf("while %s was missing: /readyz polled %d times, 503 naming it %d (first %v after the deletion), other failures %d",
		results, polls, failed, firstFailed.Round(time.Millisecond), unnamed)
	mentions := bytes.Count(logSince(t, r, logAt), []byte(results))
	createTopic(t, r, results, settings)
	r.Outcomes.Reconsume(results)
	recreated := time.Now()
	t.Logf("recreated %s at %v", results, time.Since(start).Round(time.Millisecond))

	recoverFromOutage(t, r, outageEnd{scenario: "6 outcome topic deleted", seed: seed, start: start,
		ended: recreated, what: "the recreation", recovery: recovery, readyzFailed: failed})
	if failed == 0 {
		t.Errorf("/readyz never answered 503 naming %s while it was missing (%d polls, %d other failures)", results, polls, unnamed)
	}
	if mentions == 0 {
		t.Errorf("the connector's log does not name %s after it was deleted", results)
	}
}

// payoutPhases returns a function that produces n payouts of a phase
// named by its argument, with keys prefix-<rig id>-<phase>-<index> and
// amounts from base up, and returns them.
func payoutPhases(t testing.TB, r *Rig, prefix string, n int, base int64) func(name string) []Command {
	next := 0
	return func(name string) []Command {
		cmds := make([]Command, n)
		for i := range cmds {
			key := fmt.Sprintf("%s-%s-%s-%05d", prefix, r.ID, name, next)
			cmds[i] = Command{Kind: codec.KindInitPayout, Key: key, Value: Payout(base+int64(next), key)}
			next++
		}
		return r.Produce(t, cmds...)
	}
}

// outageEnd describes a topic outage that ended, for recoverFromOutage.
type outageEnd struct {
	scenario     string
	seed         uint64
	start        time.Time     // of the scenario
	ended        time.Time     // when the topic was back
	what         string        // how it came back, for the messages
	recovery     time.Duration // allowed from ended until every payout is answered
	readyzFailed int           // polls of /readyz that answered 503 naming the topic during the outage
}

// recoverFromOutage checks that after a topic outage the connector answers
// every payout within o.recovery, is ready again and still running (it
// recovers by itself), and sent no key to the API more than
// maxSendsPerKey times; it checks and adds the scenario's row.
func recoverFromOutage(t testing.TB, r *Rig, o outageEnd) {
	t.Helper()
	if !within(o.recovery, func() bool { return unanswered(r, r.Produced) == 0 }) {
		t.Errorf("%d of %d payouts without a result %v after %s", unanswered(r, r.Produced), len(r.Produced), o.recovery, o.what)
	}
	if !within(o.recovery-time.Since(o.ended)+time.Second, func() bool { status, _ := r.Connector.Readyz(); return status == http.StatusOK }) {
		status, body := r.Connector.Readyz()
		t.Errorf("/readyz answers %d %s after %s; want 200 (the connector recovers by itself)", status, body, o.what)
	}
	if !r.Connector.Running() {
		t.Errorf("the connector exited; it must ride out a topic it cannot write")
	}
	executed := executedPayouts(t, r)
	row := Oracle(t, r, Row{Scenario: o.scenario, Seed: o.seed}, acceptedWithSession(executed))
	key, most, total := r.APICalls.Most(r.Produced)
	t.Logf("API requests: %d for %d payouts; most for one key: %d (%s)", total, len(r.Produced), most, key)
	sends, ready503 := Count(most), Count(o.readyzFailed)
	row.MaxSends, row.ReadyzFailed = &sends, &ready503
	row.WallSeconds = time.Since(o.start).Seconds()
	Check(t, row)
	if most > maxSendsPerKey {
		t.Errorf("key %s was sent to the API %d times; want at most %d (a topic that cannot be written must park work, not re-execute it)",
			key, most, maxSendsPerKey)
	}
}

// acceptedWithSession is the verdict of scenarios whose payouts must all be
// accepted with the session the sandbox created for their key.
func acceptedWithSession(executed map[string]payoutExecution) Verdict {
	return func(c Command, rs []Result) string {
		x, ok := executed[c.Key]
		if !ok {
			return "key never executed"
		}
		for _, res := range rs {
			if res.Status != codec.StatusAccepted || deref(res.SessionID) != x.session {
				return fmt.Sprintf("want accepted with %s, got %s %s session %q", x.session, res.Status,
					deref(res.ErrorCode), deref(res.SessionID))
			}
		}
		return ""
	}
}

// unanswered counts the records of cmds without a result (a dead letter
// alone does not answer a record).
func unanswered(r *Rig, cmds []Command) int {
	return len(cmds) - len(answered(cmds, r.Outcomes.Results(), nil))
}

// within polls cond, which reads another process's state, until it holds
// (true) or timeout passes (false).
func within(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond) // polling another process: no signal to await
	}
	return true
}

// topicSettings is what recreating a topic "with the same settings" keeps.
type topicSettings struct {
	partitions  int32
	replication int16
	configs     map[string]*string // set on the topic, not inherited
}

// describeTopic reads topic's partitions, replication factor and the
// configs set on it.
func describeTopic(t testing.TB, r *Rig, topic string) topicSettings {
	t.Helper()
	adm := kadm.NewClient(r.Client)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	md, err := adm.Metadata(ctx, topic)
	if err != nil {
		t.Fatalf("metadata of %s: %v", topic, err)
	}
	td := md.Topics[topic]
	if td.Err != nil || len(td.Partitions) == 0 {
		t.Fatalf("metadata of %s: %v (%d partitions)", topic, td.Err, len(td.Partitions))
	}
	s := topicSettings{partitions: int32(len(td.Partitions)), replication: int16(len(td.Partitions[0].Replicas)),
		configs: map[string]*string{}}
	rcs, err := adm.DescribeTopicConfigs(ctx, topic)
	if err == nil {
		var rc kadm.ResourceConfig
		if rc, err = rcs.On(topic, nil); err == nil {
			err = rc.Err
		}
		for _, c := range rc.Configs {
			if c.Source == kmsg.ConfigSourceDynamicTopicConfig {
				s.configs[c.Key] = c.Value
			}
		}
	}
	if err != nil {
		t.Fatalf("configs of %s: %v", topic, err)
	}
	return s
}

// deleteTopic deletes topic and waits until the broker's metadata no
// longer knows it.
func deleteTopic(t testing.TB, r *Rig, topic string) {
	t.Helper()
	adm := kadm.NewClient(r.Client)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := adm.DeleteTopic(ctx, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("delete %s: %v", topic, err)
	}
	harness.Eventually(t, 30*time.Second, topic+" deleted", func() bool {
		md, err := adm.Metadata(ctx, topic)
		return err == nil && errors.Is(md.Topics[topic].Err, kerr.UnknownTopicOrPartition)
	})
}

// createTopic creates topic again with settings, retrying while the broker
// still finishes the deletion, and waits until every partition has a
// leader.
func createTopic(t testing.TB, r *Rig, topic string, s topicSettings) {
	t.Helper()
	adm := kadm.NewClient(r.Client)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var last error
	created := within(30*time.Second, func() bool {
		resp, err := adm.CreateTopic(ctx, s.partitions, s.replication, s.configs, topic)
		if err == nil {
			err = resp.Err
		}
		last = err
		return err == nil
	})
	if !created {
		t.Fatalf("create %s again: %v", topic, last)
	}
	harness.Eventually(t, 30*time.Second, topic+" has leaders", func() bool {
		md, err := adm.Metadata(ctx, topic)
		if err != nil || md.Topics[topic].Err != nil || len(md.Topics[topic].Partitions) != int(s.partitions) {
			return false
		}
		for _, p := range md.Topics[topic].Partitions {
			if p.Err != nil || p.Leader < 0 {
				return false
			}
		}
		return true
	})
}

// logSize is the length of the connector's log so far.
func logSize(t testing.TB, r *Rig) int64 {
	t.Helper()
	st, err := os.Stat(r.Connector.Log())
	if err != nil {
		t.Fatalf("connector log: %v", err)
	}
	return st.Size()
}

// logSince returns the connector's log from offset at on.
func logSince(t testing.TB, r *Rig, at int64) []byte {
	t.Helper()
	b, err := os.ReadFile(r.Connector.Log())
	if err != nil {
		t.Fatalf("connector log: %v", err)
	}
	return b[min(at, int64(len(b))):]
}
