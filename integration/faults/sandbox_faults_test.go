package faults_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/paysim"
)

// TestSandboxFaults is scenario 3: faults of the separate paysim process,
// switched through POST /admin/faults while payouts flow. Each phase has
// its own payouts so that the scenario can prove its fault hit them:
//
//   - 5xx burst: error_rate 1 before the phase's payouts arrive, lifted only
//     once the connector retried them, parked them in the retry topic at the
//     batch deadline and paused fetching (back-pressure). Every payout of the
//     phase must show at least two attempts.
//   - partial 5xx: error_rate 0.2-0.4 (seeded) for the whole phase.
//   - latency spike: 2-2.5 s on every call until half of the phase is
//     answered; the sandbox's executions must show calls of 2 s or more.
//   - dropped responses: drop_rate 0.3: the sandbox executes, books, and
//     closes the connection without answering. The connector retries with
//     the same key and gets the stored answer (a replay is never dropped
//     and is not an execution). With no other fault on, the connector's
//     attempts minus the sandbox's executions of the phase count the lost
//     responses, and must be above 0.
//   - webhook refusals: webhook_refuse 1 while the phase's payouts finish,
//     so each first delivery attempt is refused; the sandbox clock is moved
//     30 s (second attempt, refused), then with refusals at 0.5 by 60 s
//     (third attempt, about half delivered). Each delivery of the phase
//     must have been refused twice and end delivered.
//   - mixed: seeded steps (burst, partial 5xx, spike, drops, all at once)
//     each switched on as its chunk of payouts is produced while earlier
//     chunks still retry, webhook refusals at 0.5 throughout.
//
// Then the faults are lifted and the sandbox clock moved 31 minutes, which
// fires every webhook retry still scheduled (a delivery's last attempt is
// 30 minutes after its first).
//
// Verdict: the retry budget set here (1000 attempts, 10 minutes, backoff
// 50 ms to 1 s) outlasts every fault the scenario injects. Under the
// contract a command ends indeterminate only when its budget is spent while
// a request may have been sent; here none may, so every payout must be
// accepted, exactly once, with the session the sandbox created for its key.
// Every webhook must end delivered (none failed or pending), every payout's
// session must have one, and each must be published once on webhook-events.
// The connector's /metrics must count retries.
func TestSandboxFaults(t *testing.T) {
	t.Parallel()
	n := size("FAULTS_SANDBOX_COMMANDS", 150, 3_000)
	seed := seed()
	t.Logf("scenario 3: %d commands, seed %d", n, seed)
	brokers := harness.Kafka(t) // the broker's start and the build are not the scenario's time
	binary(t, "paysim")
	s := &sandboxScenario{t: t, rng: rand.New(rand.NewPCG(seed, 3)), start: time.Now()}
	s.r = NewRig(t, RigOptions{
		Brokers:      brokers,
		Webhooks:     true,
		SandboxFlags: []string{"-seed", strconv.FormatUint(seed, 10)},
		Env: map[string]string{
			"PAYSESSION_API_RETRY_MAX_ATTEMPTS": "1000",
			"PAYSESSION_API_RETRY_MAX_ELAPSED":  "10m",
			"PAYSESSION_API_RETRY_BACKOFF_BASE": "50ms",
			"PAYSESSION_API_RETRY_BACKOFF_MAX":  "1s",
			// Above the 2-2.5 s spikes; the mixed phase's exponential jitter
			// (mean 2 s) exceeds it now and then: timeouts, after which the
			// sandbox still executes and the retry gets the stored answer.
			"PAYSESSION_API_REQUEST_TIMEOUT": "3s",
		},
	})
	t.Logf("rig ready after %v", time.Since(s.start).Round(time.Millisecond))
	per := max(n/6, 5)
	s.burst(per)
	s.partial(per)
	s.spike(per)
	s.drops(per)
	s.refusals(per)
	s.mixed(max(n-5*per, 4), max(4, size("FAULTS_SANDBOX_STEPS", 4, 10)))
	s.deliverWebhooks()

	r := s.r
	executed := executedPayouts(t, r)
	row := Oracle(t, r, Row{Scenario: "3 sandbox faults", Seed: seed}, func(c Command, rs []Result) string {
		x, ok := executed[c.Key]
		if !ok {
			return "key never executed"
		}
		for _, res := range rs {
			if res.Status != codec.StatusAccepted || deref(res.SessionID) != x.session {
				return fmt.Sprintf("want accepted with %s, got %s %s session %q after %d attempts", x.session,
					res.Status, deref(res.ErrorCode), deref(res.SessionID), res.Attempts)
			}
		}
		return ""
	})
	row.WallSeconds = time.Since(s.start).Seconds()
	Check(t, row)
	s.checkFaultsHit(executed)
}

// sandboxScenario is scenario 3's state: the rig, the seeded choices, and
// the phases run so far.
type sandboxScenario struct {
	t      *testing.T
	r      *Rig
	rng    *rand.Rand
	start  time.Time
	next   int // number of the next payout
	phases []*sandboxPhase
}

// sandboxPhase is one stretch of the scenario: the payouts produced while
// one kind of fault was on, and the test that the fault hit them.
type sandboxPhase struct {
	name    string
	cmds    []Command
	retries float64 // growth of paysession_pipeline_retries_total during the phase
	// hit returns why the fault did not demonstrably hit the phase's
	// payouts, or "".
	hit func(phaseStats) string
}

// phaseStats is what the connector and the sandbox did for one phase.
type phaseStats struct {
	calls      int // API attempts, from the results' attempts
	executions int // sandbox executions of the phase's keys
	retried    int // payouts with more than one attempt
	slow       int // executions that took 2 s or more
	refused    int // webhook deliveries refused twice, then delivered
	retries    float64
}

// answerTimeout bounds the wait for one phase's results.
const answerTimeout = 4 * time.Minute

// phase runs one phase: run sets the faults, produces the payouts and
// lifts the faults.
func (s *sandboxScenario) phase(name string, hit func(phaseStats) string, run func(p *sandboxPhase)) {
	p := &sandboxPhase{name: name, hit: hit, retries: -pipelineRetries(s.t, s.r)}
	s.phases = append(s.phases, p)
	run(p)
	s.r.Outcomes.AwaitAnswered(s.t, p.cmds, answerTimeout)
	p.retries += pipelineRetries(s.t, s.r)
	s.t.Logf("phase %-14s %4d commands, %5.0f retries, done at %v", p.name, len(p.cmds), p.retries,
		time.Since(s.start).Round(time.Millisecond))
}

// payouts produces count payouts of phase, keys sbx-<rig>-<phase>-<n>.
func (s *sandboxScenario) payouts(phase string, count int) []Command {
	cmds := make([]Command, count)
	for i := range cmds {
		key := fmt.Sprintf("sbx-%s-%s-%05d", s.r.ID, phase, s.next)
		cmds[i] = Command{Kind: codec.KindInitPayout, Key: key, Value: Payout(int64(30_000+s.next), key)}
		s.next++
	}
	return s.r.Produce(s.t, cmds...)
}

func (s *sandboxScenario) burst(count int) {
	s.phase("5xx-burst", func(st phaseStats) string {
		if st.retried != count {
			return fmt.Sprintf("%d of %d payouts retried; every first attempt met error_rate 1", st.retried, count)
		}
		return ""
	}, func(p *sandboxPhase) {
		started, paused := time.Now(), pauses(s.r)
		setFaults(s.t, s.r.Sandbox, paysim.Faults{ErrorRate: 1})
		p.cmds = s.payouts("burst", count)
		// Until the batch deadline parked the retrying payouts and the
		// pipeline paused fetching; while paused only its probes call.
		await(s.t, s.r, 2*time.Minute, func() (bool, string) {
			parked, now := retryTopicEnd(s.t, s.r), pauses(s.r)
			return parked > 0 && now > paused, fmt.Sprintf("retry topic end offset %d, paused fetching %d times", parked, now)
		})
		s.t.Logf("5xx burst: lifted after %v: retry topic end offset %d, connector paused fetching, %.0f retries",
			time.Since(started).Round(time.Millisecond), retryTopicEnd(s.t, s.r), p.retries+pipelineRetries(s.t, s.r))
		setFaults(s.t, s.r.Sandbox, paysim.Faults{})
	})
}

func (s *sandboxScenario) partial(count int) {
	s.phase("5xx-partial", func(st phaseStats) string {
		if st.retried == 0 || st.retries == 0 {
			return fmt.Sprintf("no payout retried (retries %.0f)", st.retries)
		}
		return ""
	}, func(p *sandboxPhase) {
		setFaults(s.t, s.r.Sandbox, paysim.Faults{ErrorRate: 0.2 + 0.2*s.rng.Float64()})
		p.cmds = s.payouts("partial", count)
		s.r.Outcomes.AwaitAnswered(s.t, p.cmds, answerTimeout)
		setFaults(s.t, s.r.Sandbox, paysim.Faults{})
	})
}

func (s *sandboxScenario) spike(count int) {
	s.phase("latency-spike", func(st phaseStats) string {
		if st.slow == 0 {
			return "no sandbox execution took 2 s"
		}
		return ""
	}, func(p *sandboxPhase) {
		setFaults(s.t, s.r.Sandbox, paysim.Faults{Latency: 2 * time.Second, LatencyJitter: 500 * time.Millisecond})
		p.cmds = s.payouts("spike", count)
		awaitAnsweredCount(s.t, s.r, p.cmds, (count+1)/2, answerTimeout)
		setFaults(s.t, s.r.Sandbox, paysim.Faults{})
	})
}

func (s *sandboxScenario) drops(count int) {
	s.phase("drop-response", func(st phaseStats) string {
		// No other fault: every call reached the sandbox's execution, all
		// but one per key were replays, and a replay follows a response
		// lost after execution.
		if lost := st.calls - st.executions; lost <= 0 || st.retries == 0 {
			return fmt.Sprintf("%d calls for %d executions (retries %.0f): no response was dropped",
				st.calls, st.executions, st.retries)
		}
		return ""
	}, func(p *sandboxPhase) {
		setFaults(s.t, s.r.Sandbox, paysim.Faults{DropRate: 0.3})
		p.cmds = s.payouts("drop", count)
		s.r.Outcomes.AwaitAnswered(s.t, p.cmds, answerTimeout)
		setFaults(s.t, s.r.Sandbox, paysim.Faults{})
	})
}

func (s *sandboxScenario) refusals(count int) {
	sb := s.r.Sandbox
	sb.WaitIdle(s.t) // earlier webhooks delivered before refusals start
	s.phase("webhook-refuse", func(st phaseStats) string {
		if st.refused != count {
			return fmt.Sprintf("%d of %d deliveries refused twice and then delivered", st.refused, count)
		}
		return ""
	}, func(p *sandboxPhase) {
		setFaults(s.t, sb, paysim.Faults{WebhookRefuse: 1})
		p.cmds = s.payouts("refuse", count)
		s.r.Outcomes.AwaitAnswered(s.t, p.cmds, answerTimeout)
		refused := sessionsOf(s.r, p.cmds)
		awaitDeliveryAttempts(s.t, s.r, refused, 1, time.Minute) // first attempts refused
		advanceClock(s.t, sb, 30*time.Second)
		awaitDeliveryAttempts(s.t, s.r, refused, 2, time.Minute) // second attempts refused
		setFaults(s.t, sb, paysim.Faults{WebhookRefuse: 0.5})
		advanceClock(s.t, sb, time.Minute)
		awaitDeliveryAttempts(s.t, s.r, refused, 3, time.Minute) // third: about half delivered
		setFaults(s.t, sb, paysim.Faults{})
	})
}

// mixed produces count payouts in steps chunks, each under a seeded fault
// step, with webhook refusals at 0.5.
func (s *sandboxScenario) mixed(count, steps int) {
	s.phase("mixed", nil, func(p *sandboxPhase) {
		for i := range steps {
			chunk := count / steps
			if i == steps-1 {
				chunk = count - i*(count/steps)
			}
			f, burst := mixedStep(s.rng)
			f.WebhookRefuse = 0.5
			s.t.Logf("mixed step %d: %d commands, faults %s", i, chunk, faultsString(f))
			retries, paused := pipelineRetries(s.t, s.r), pauses(s.r)
			setFaults(s.t, s.r.Sandbox, f)
			cmds := s.payouts(fmt.Sprintf("mixed%d", i), chunk)
			p.cmds = append(p.cmds, cmds...)
			if burst { // no call succeeds: until the chunk retried, or fetching paused
				await(s.t, s.r, 2*time.Minute, func() (bool, string) {
					now := pipelineRetries(s.t, s.r)
					return now >= retries+float64(2*chunk) || pauses(s.r) > paused,
						fmt.Sprintf("%.0f retries in the step, want %d or a pause", now-retries, 2*chunk)
				})
			} else {
				awaitAnsweredCount(s.t, s.r, cmds, (chunk+1)/2, answerTimeout)
			}
		}
		setFaults(s.t, s.r.Sandbox, paysim.Faults{})
	})
}

// mixedStep draws one step of the mixed phase; burst says the step fails
// every call.
func mixedStep(rng *rand.Rand) (f paysim.Faults, burst bool) {
	switch rng.IntN(5) {
	case 0:
		return paysim.Faults{ErrorRate: 1}, true
	case 1:
		return paysim.Faults{ErrorRate: 0.2 + 0.3*rng.Float64()}, false
	case 2:
		return paysim.Faults{Latency: 2 * time.Second, LatencyJitter: 500 * time.Millisecond}, false
	case 3:
		return paysim.Faults{DropRate: 0.2 + 0.3*rng.Float64()}, false
	default:
		return paysim.Faults{ErrorRate: 0.2, DropRate: 0.2, Latency: 100 * time.Millisecond,
			LatencyJitter: 2 * time.Second, LatencyDistribution: "exponential"}, false
	}
}

func faultsString(f paysim.Faults) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// deliverWebhooks lifts refusals (already off) and fires every webhook
// retry still scheduled by moving the sandbox clock past the 30 minutes
// after which the sandbox gives up, then waits until the connector
// published them.
func (s *sandboxScenario) deliverWebhooks() {
	sb := s.r.Sandbox
	awaitDeliveryAttempts(s.t, s.r, sessionsOf(s.r, s.r.Produced), 1, time.Minute)
	sb.WaitIdle(s.t)
	advanceClock(s.t, sb, 31*time.Minute)
	sb.WaitIdle(s.t)
	awaitWebhooksPublished(s.t, s.r, 2*time.Minute)
}

// checkFaultsHit fails the test unless each phase's fault demonstrably hit
// its payouts (connector results and metrics, sandbox executions and
// webhooks), and unless every webhook ended delivered.
func (s *sandboxScenario) checkFaultsHit(executed map[string]payoutExecution) {
	t, r := s.t, s.r
	attempts := map[string]int{} // key -> attempts of its first result
	for _, res := range r.Outcomes.Results() {
		if _, ok := attempts[res.IdempotencyKey]; !ok {
			attempts[res.IdempotencyKey] = int(res.Attempts)
		}
	}
	execs := map[string][]paysim.Execution{}
	for _, x := range r.Sandbox.Executions(t) {
		execs[x.IdempotencyKey] = append(execs[x.IdempotencyKey], x)
	}
	hooks := r.Sandbox.Webhooks(t)
	refusedTwice := map[string]bool{} // sessions whose delivery was refused twice, then delivered
	states := map[string]int{}
	delivered := map[string]bool{}
	for _, d := range hooks {
		states[d.State]++
		if d.State != "delivered" {
			continue
		}
		delivered[d.SessionID] = true
		if len(d.Attempts) > 2 && refusedAttempt(d.Attempts[0]) && refusedAttempt(d.Attempts[1]) {
			refusedTwice[d.SessionID] = true
		}
	}
	total := pipelineRetries(t, r)
	t.Logf("connector: paysession_pipeline_retries_total %.0f, API calls with a retryable outcome %.0f",
		total, metricSum(t, r, "paysession_api_request_duration_seconds_count", `outcome="retryable"`))
	if total == 0 {
		t.Errorf("paysession_pipeline_retries_total is 0: no fault reached the connector")
	}
	for _, p := range s.phases {
		st := phaseStats{retries: p.retries}
		for _, c := range p.cmds {
			st.calls += attempts[c.Key]
			if attempts[c.Key] > 1 {
				st.retried++
			}
			for _, x := range execs[c.Key] {
				st.executions++
				if x.Finished.Sub(x.Started) >= 2*time.Second {
					st.slow++
				}
			}
			if refusedTwice[executed[c.Key].session] {
				st.refused++
			}
		}
		t.Logf("phase %-14s commands %4d, connector attempts %5d, sandbox executions %4d (>= 2 s: %4d), "+
			"payouts retried %4d, pipeline retries %5.0f, webhooks refused twice then delivered %4d",
			p.name, len(p.cmds), st.calls, st.executions, st.slow, st.retried, st.retries, st.refused)
		if p.hit == nil {
			continue
		}
		if why := p.hit(st); why != "" {
			t.Errorf("phase %s: the fault was not hit: %s", p.name, why)
		}
	}
	refused := 0
	for _, d := range hooks {
		for _, a := range d.Attempts {
			if refusedAttempt(a) {
				refused++
			}
		}
	}
	t.Logf("sandbox webhooks: %d deliveries, states %v, %d attempts refused", len(hooks), states, refused)
	if states["delivered"] != len(hooks) {
		t.Errorf("webhooks: states %v; want every delivery delivered", states)
	}
	for key, x := range executed {
		if strings.HasPrefix(key, "sbx-"+r.ID+"-") && !delivered[x.session] {
			t.Errorf("webhooks: session %s of %s has no delivered webhook", x.session, key)
		}
	}
}

func refusedAttempt(a paysim.WebhookAttempt) bool {
	return strings.Contains(a.Error, "webhook_refuse")
}

// setFaults replaces the sandbox's fault knobs (POST /admin/faults).
func setFaults(t testing.TB, s *Sandbox, f paysim.Faults) {
	t.Helper()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	s.post(t, "/admin/faults", b)
}

// advanceClock moves the sandbox's clock forward by d and fires the timers
// that became due (POST /admin/clock/advance); await them with WaitIdle.
func advanceClock(t testing.TB, s *Sandbox, d time.Duration) {
	t.Helper()
	s.post(t, "/admin/clock/advance", fmt.Appendf(nil, `{"seconds":%g}`, d.Seconds()))
}

func (s *Sandbox) post(t testing.TB, path string, body []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("paysim POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("paysim POST %s %s: %s", path, body, resp.Status)
	}
}

// pipelineRetries reads paysession_pipeline_retries_total (all kinds).
func pipelineRetries(t testing.TB, r *Rig) float64 {
	return metricSum(t, r, "paysession_pipeline_retries_total", "")
}

// metricSum sums the series of metric name on the connector's /metrics
// whose labels contain match ("" = all).
func metricSum(t testing.TB, r *Rig, name, match string) float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.Connector.OpsURL+"/metrics", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("connector /metrics: %v", err)
	}
	defer resp.Body.Close()
	sum := 0.0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, name)
		if !ok || rest == "" || (rest[0] != '{' && rest[0] != ' ') || !strings.Contains(rest, match) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("connector /metrics: %q: %v", line, err)
		}
		sum += v
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("connector /metrics: %v", err)
	}
	return sum
}

// await polls cond, which reads another process's state (there is no
// signal to wait on), until it holds; after timeout it fails t with cond's
// description of the state and the connector's log tail.
func await(t testing.TB, r *Rig, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s\n%s", timeout, state, r.Connector.Tail(30))
		}
		time.Sleep(50 * time.Millisecond) // polling another process: no signal to await
	}
}

// retryTopicEnd is the sum of the retry topic's end offsets: above 0 once
// the pipeline parked a command there (records and transaction markers).
func retryTopicEnd(t testing.TB, r *Rig) int64 {
	t.Helper()
	topic := r.Topics["PAYSESSION_TOPIC_RETRY"]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ends, err := kadm.NewClient(r.Client).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatalf("list end offsets of %s: %v", topic, err)
	}
	var sum int64
	ends.Each(func(o kadm.ListedOffset) { sum += o.Offset })
	return sum
}

// pausedFetching is what the pipeline logs when back-pressure pauses
// fetching (connector/pipeline/backpressure.go).
const pausedFetching = "paused fetching"

// pauses counts the times the connector paused fetching so far.
func pauses(r *Rig) int {
	logged, _ := os.ReadFile(r.Connector.Log())
	return bytes.Count(logged, []byte(pausedFetching))
}

// sessionsOf returns the session ids of the results answering cmds.
func sessionsOf(r *Rig, cmds []Command) map[string]bool {
	keys := map[string]bool{}
	for _, c := range cmds {
		keys[c.Key] = true
	}
	out := map[string]bool{}
	for _, res := range r.Outcomes.Results() {
		if keys[res.IdempotencyKey] && res.SessionID != nil {
			out[*res.SessionID] = true
		}
	}
	return out
}

// awaitDeliveryAttempts polls the sandbox's webhook log until a webhook of
// every session in sessions was attempted at least attempts times or
// delivered (a payout's webhook follows its API answer asynchronously).
func awaitDeliveryAttempts(t testing.TB, r *Rig, sessions map[string]bool, attempts int, timeout time.Duration) {
	t.Helper()
	await(t, r, timeout, func() (bool, string) {
		done := map[string]bool{}
		for _, d := range r.Sandbox.Webhooks(t) {
			if sessions[d.SessionID] && (len(d.Attempts) >= attempts || d.State == "delivered") {
				done[d.SessionID] = true
			}
		}
		return len(done) == len(sessions),
			fmt.Sprintf("webhooks of %d of %d sessions attempted %d times", len(done), len(sessions), attempts)
	})
}

// awaitAnsweredCount waits until at least want of cmds have a result or a
// dead letter.
func awaitAnsweredCount(t testing.TB, r *Rig, cmds []Command, want int, timeout time.Duration) {
	t.Helper()
	await(t, r, timeout, func() (bool, string) {
		got := len(answered(cmds, r.Outcomes.Results(), r.Outcomes.DeadLetters()))
		return got >= want, fmt.Sprintf("%d of %d commands answered, want %d", got, len(cmds), want)
	})
}

// awaitWebhooksPublished waits until every webhook the sandbox delivered
// is on the webhook-events topic (the connector answers 200 only after
// Kafka acknowledged it; the reader may lag behind).
func awaitWebhooksPublished(t testing.TB, r *Rig, timeout time.Duration) {
	t.Helper()
	await(t, r, timeout, func() (bool, string) {
		expected, published, _ := webhookCounts(t, r)
		return published >= expected,
			fmt.Sprintf("%d of %d delivered webhooks on the webhook-events topic", published, expected)
	})
}
