package faults_test

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/paysim"
)

// TestPauseResume is scenario 12 (issue 40 item 1): two connector
// replicas under load are paused through the control topic (`connector
// pause`, the binary), and resumed (`connector resume`).
//
//   - A third of the payouts run before the pause with webhook deliveries
//     refused, so their webhooks are still to be delivered.
//   - A third are produced and the pause written while their calls are in
//     flight (held at the counting proxy until both replicas report the
//     pause in /readyz, still 200): they finish and commit after it.
//   - The last third are produced while paused; replica 2 is SIGKILLed and
//     restarted (it must come back paused); the refused webhooks are
//     delivered (refusals off, the sandbox clock moved): each is answered
//     200 and published while paused.
//   - The pause lasts at least the bound: no command's API call (the
//     counting proxy) may start later than the bound after `connector
//     pause` returned, and no payout of the last third is sent at all.
//   - Resume: every payout accepted exactly once, nothing executed twice.
//
// The row reports in answered s the time from the pause to the last API
// call before the resume, and in bound s the bound: the control topic's
// fetch wait (0.5 s) plus two batch deadlines (the chart README, "Pause and
// resume").
func TestPauseResume(t *testing.T) {
	t.Parallel()
	n := size("FAULTS_PAUSE_COMMANDS", 90, 1_500)
	t.Logf("scenario 12: %d payouts over two replicas, paused and resumed, a replica restarted while paused", n)
	start := time.Now()
	const batchDeadline = 5 * time.Second
	bound := 500*time.Millisecond + 2*batchDeadline
	r := NewRig(t, RigOptions{Webhooks: true, CountAPICalls: true, Env: map[string]string{
		"PAYSESSION_KAFKA_INSTANCE_ID":       "pause-1",
		"PAYSESSION_PIPELINE_BATCH_DEADLINE": batchDeadline.String(),
	}})
	env := maps.Clone(r.Connector.Env)
	delete(env, "PAYSESSION_WEBHOOK_LISTEN_ADDR") // StartConnector picks free ones
	delete(env, "PAYSESSION_METRICS_LISTEN_ADDR")
	env["PAYSESSION_KAFKA_INSTANCE_ID"] = "pause-2"
	env["PAYSESSION_KAFKA_CLIENT_ID"] += "-2"
	replicas := []*Connector{r.Connector, StartConnector(t, env)}

	third := n / 3
	setFaults(t, r.Sandbox, paysim.Faults{WebhookRefuse: 1})
	before := r.Produce(t, payouts(r.ID, 0, third)...)
	r.Outcomes.AwaitAnswered(t, before, 5*time.Minute)
	refused := sessionsOf(r, before)
	awaitDeliveryAttempts(t, r, refused, 1, time.Minute)

	// The second third's calls are held at the proxy until the pause is
	// obeyed: in-flight calls finish and commit after it.
	r.APICalls.Hold()
	r.Produce(t, payouts(r.ID, third, third)...)
	await(t, r, time.Minute, func() (bool, string) {
		in := metricValue(t, replicas[0], "paysession_pipeline_in_flight", "") + metricValue(t, replicas[1], "paysession_pipeline_in_flight", "")
		return in > 0, "API calls in flight"
	})
	controlCLI(t, r, "pause", "-by", "faults-12")
	paused := time.Now()
	for i, c := range replicas {
		awaitPauseReported(t, r, c, fmt.Sprintf("replica %d", i+1))
	}
	r.APICalls.Release()

	during := r.Produce(t, payouts(r.ID, 2*third, n-2*third)...)
	replicas[1].Kill()
	replicas[1].Restart(t)
	awaitPauseReported(t, r, replicas[1], "replica 2 after its restart")

	setFaults(t, r.Sandbox, paysim.Faults{})
	advanceClock(t, r.Sandbox, 30*time.Second) // the refused deliveries' next attempt
	await(t, r, 2*time.Minute, func() (bool, string) {
		delivered := 0
		for _, d := range r.Sandbox.Webhooks(t) {
			if refused[d.SessionID] && d.State == "delivered" {
				delivered++
			}
		}
		return delivered >= len(refused), fmt.Sprintf("%d of %d refused webhooks delivered while paused", delivered, len(refused))
	})
	awaitWebhooksPublished(t, r, 2*time.Minute)
	states := lastSessionStates(t, r)
	for s := range refused {
		if states[s] == nil {
			t.Errorf("session %s has no state on the sessions topic after its webhook, while paused", s)
		}
	}
	// A bound is checked only once it has passed: the pause lasts at least
	// the bound (the restart above usually takes longer).
	await(t, r, 2*bound, func() (bool, string) {
		return time.Since(paused) > bound+time.Second, "the pause lasting its bound"
	})
	lastCall := r.APICalls.Last().Sub(paused)
	perKey := r.APICalls.PerKey()
	for _, c := range during {
		if perKey[c.Key] > 0 {
			t.Errorf("%s, produced while paused, was sent %d times while paused", c.Key, perKey[c.Key])
		}
	}
	for i, c := range replicas {
		if status, body := c.Readyz(); status != 200 {
			t.Errorf("replica %d unready while paused: %d %s", i+1, status, body)
		}
	}
	t.Logf("last API call %v after the pause (bound %v)", lastCall.Round(time.Millisecond), bound)

	controlCLI(t, r, "resume", "-by", "faults-12")
	r.Outcomes.AwaitAnswered(t, r.Produced, 5*time.Minute)
	answered, b := Seconds(max(0, lastCall.Seconds())), Seconds(bound.Seconds())
	row := Oracle(t, r, Row{Scenario: "12 pause and resume", Seed: seed(), AnsweredSeconds: &answered, BoundSeconds: &b}, acceptedOnce)
	row.WallSeconds = time.Since(start).Seconds()
	Check(t, row)
}

// controlCLI runs `connector <args>` (pause, resume) with the rig
// connector's variables, as an operator would.
func controlCLI(t *testing.T, r *Rig, args ...string) {
	t.Helper()
	cmd := exec.Command(binary(t, "connector"), args...)
	cmd.Env = os.Environ()
	vars := make([]string, 0, len(r.Connector.Env))
	for k, v := range r.Connector.Env {
		vars = append(vars, k+"="+v)
	}
	sort.Strings(vars)
	cmd.Env = append(cmd.Env, vars...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("connector %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// awaitPauseReported waits until c's /readyz answers 200 and names the
// pause of init_payout in its detail.
func awaitPauseReported(t *testing.T, r *Rig, c *Connector, who string) {
	t.Helper()
	await(t, r, time.Minute, func() (bool, string) {
		status, body := c.Readyz()
		return status == 200 && strings.Contains(body, `"paused":{`) && strings.Contains(body, `"init_payout"`),
			fmt.Sprintf("%s: /readyz %d %s, want 200 naming the pause", who, status, body)
	})
}
