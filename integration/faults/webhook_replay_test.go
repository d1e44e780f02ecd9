package faults_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// TestWebhookReplays is scenario 8 (issue 14): three connector replicas
// share the sessions, session-updates and webhook-events topics (three
// partitions each, so each replica's session writer owns some). The
// sandbox's webhooks go through a seeded spray in front of the replicas: it
// sends each delivery to a random live replica and a third of them to a
// second one too; meanwhile it replays old, validly signed deliveries to
// random replicas, and the replicas are SIGKILLed, SIGTERMed and restarted
// one at a time. At the end every delivery is replayed once more, in random
// order. Pass: every payout answered once; for every session the last
// record on payments.sessions is the sandbox's final state (status and
// updated_at of its newest webhook); payments.webhook-events holds each
// delivered event id exactly once.
func TestWebhookReplays(t *testing.T) {
	t.Parallel()
	n := size("FAULTS_REPLAY_COMMANDS", 150, 1_500)
	span := time.Duration(size("FAULTS_REPLAY_SECONDS", 15, 60)) * time.Second
	seed := seed()
	start := time.Now()
	sp := &spray{rng: rand.New(rand.NewPCG(seed, 8)), client: &http.Client{Timeout: 15 * time.Second}}
	front := httptest.NewServer(sp)
	t.Cleanup(front.Close)
	r := NewRig(t, RigOptions{
		Partitions: 3, SessionPartitions: 3, WebhookURL: front.URL + webhookPath,
		SandboxFlags: []string{"-latency", "20ms", "-latency-jitter", "40ms", "-seed", strconv.FormatUint(seed, 10)},
		Env:          replayEnv(1),
	})
	procs := []*Connector{r.Connector}
	for i := 2; i <= 3; i++ {
		env := map[string]string{}
		for k, v := range r.Connector.Env {
			env[k] = v
		}
		for k, v := range replayEnv(i) {
			env[k] = v
		}
		env["PAYSESSION_WEBHOOK_LISTEN_ADDR"], env["PAYSESSION_METRICS_LISTEN_ADDR"] = freeAddr(t), freeAddr(t)
		procs = append(procs, StartConnector(t, env))
	}
	sp.setTargets(procs)
	t.Logf("scenario 8: %d payouts over %v, 3 replicas, seed %d; rig ready after %v", n, span, seed, time.Since(start).Round(time.Millisecond))

	stopReplays := sp.replayInBackground(50 * time.Millisecond)
	cmds := payoutsPrefixed("rep", r.ID, 0, n)
	for i := 0; i < len(cmds); i += 3 { // every third waits for session/confirm: two webhooks, an auto-confirm
		cmds[i].Value = Payout(int64(confirmThreshold+1+i), cmds[i].Key)
	}
	prod := startFlow(t, r, cmds, span)
	kills, restarts := 0, 0
	plan := []struct {
		replica int
		kill    bool // SIGKILL; else SIGTERM
	}{{1, true}, {2, false}, {0, true}}
	for i, step := range plan {
		awaitExecutions(t, r, (i+1)*n/(len(plan)+1), 3*time.Minute)
		c := procs[step.replica]
		if step.kill {
			c.Kill()
			kills++
		} else if err := c.Stop(30 * time.Second); err != nil {
			t.Errorf("stop replica-%d: %v", step.replica+1, err)
		}
		c.Restart(t)
		restarts++
		t.Logf("step %d at %v: replica-%d %s and restarted", i+1, time.Since(start).Round(time.Millisecond), step.replica+1,
			map[bool]string{true: "SIGKILLed", false: "SIGTERMed"}[step.kill])
	}
	r.Produced = append(r.Produced, prod.wait(t)...)
	r.Outcomes.AwaitAnswered(t, r.Produced, 5*time.Minute)
	want := (n + 2) / 3
	deadline := time.Now().Add(2 * time.Minute)
	for len(confirmedSessions(t, r)) < want && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond) // the reconcilers' pace (1s interval)
	}
	fireWebhookRetries(t, r)
	replays := stopReplays()
	replays += sp.replayAll()
	t.Logf("webhooks: %d deliveries, %d duplicated to a second replica, %d replays", sp.count(), sp.dupCount(), replays)
	confirms := confirmedSessions(t, r)
	for id, c := range confirms {
		if c > 1 {
			t.Errorf("session %s confirmed %d times: a replay re-opened it", id, c)
		}
	}
	if len(confirms) != want {
		t.Errorf("%d sessions confirmed, want %d (every third payout)", len(confirms), want)
	}

	row := Oracle(t, r, Row{Scenario: "8 webhook replays, 3 replicas", Seed: seed, Kills: kills, Restarts: restarts}, acceptedOnce)
	for _, c := range procs[1:] {
		row.CardLeaks += logLeaks(t, c.Log())
	}
	stale := Count(finalStateMismatches(t, r))
	row.StaleStates = &stale
	row.WallSeconds = time.Since(start).Seconds()
	Check(t, row)
	if replays == 0 || sp.dupCount() == 0 {
		t.Errorf("the spray replayed %d and duplicated %d deliveries: the scenario tested nothing", replays, sp.dupCount())
	}
}

// confirmedSessions counts the session/confirm calls the sandbox executed,
// per session.
func confirmedSessions(t testing.TB, r *Rig) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, x := range r.Sandbox.Executions(t) {
		if x.Method == "session/confirm" {
			out[x.SessionID]++
		}
	}
	return out
}

// confirmThreshold is the dev project's amount above which a payout waits
// for session/confirm.
const confirmThreshold = 1_000_000

// replayEnv is replicaEnv with the reconciler on and confirming payouts
// automatically: a replayed "ready_to_confirm" that re-opened a session
// would make it confirm again.
func replayEnv(i int) map[string]string {
	env := replicaEnv(i)
	for k, v := range map[string]string{
		"PAYSESSION_RECONCILER_INTERVAL":    "1s",
		"PAYSESSION_RECONCILER_QUIET_AFTER": "2s",
		"PAYSESSION_CONFIRM_POLICY":         "auto",
		"PAYSESSION_CONFIRM_KINDS":          "payout",
		"PAYSESSION_CONFIRM_MAX_AMOUNT":     "5000000",
	} {
		env[k] = v
	}
	return env
}

// delivery is one webhook as the sandbox sent it: body and signature.
type delivery struct {
	body []byte
	sig  string
}

// spray is the seeded webhook front of scenario 8.
type spray struct {
	client *http.Client

	mu      sync.Mutex
	rng     *rand.Rand
	targets []*Connector
	seen    []delivery
	dups    int
}

func (s *spray) setTargets(cs []*Connector) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.targets = cs
}

// ServeHTTP forwards a delivery to one random replica that answers (and,
// one time in three, to a second one as well) and answers what the first
// replica answered; 503 while no replica answers.
func (s *spray) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	d := delivery{body: body, sig: req.Header.Get("X-PARTNER-SIGN")}
	s.mu.Lock()
	s.seen = append(s.seen, d)
	order := s.rng.Perm(len(s.targets))
	targets := s.targets
	dup := s.rng.IntN(3) == 0
	s.mu.Unlock()
	code, sent := http.StatusServiceUnavailable, 0
	for _, i := range order {
		c := s.post(targets[i], d)
		if c == 0 {
			continue // the replica is down
		}
		if sent == 0 {
			code = c
		}
		if sent++; !dup || sent == 2 {
			break
		}
	}
	if sent == 2 {
		s.mu.Lock()
		s.dups++
		s.mu.Unlock()
	}
	w.WriteHeader(code)
}

// post sends d to replica c; 0 when it did not answer.
func (s *spray) post(c *Connector, d delivery) int { return postWebhook(s.client, c.WebhookURL, d) }

// replayOne sends a random earlier delivery to a random replica; it
// reports whether one was sent.
func (s *spray) replayOne() bool {
	s.mu.Lock()
	if len(s.seen) == 0 || len(s.targets) == 0 {
		s.mu.Unlock()
		return false
	}
	d := s.seen[s.rng.IntN(len(s.seen))]
	c := s.targets[s.rng.IntN(len(s.targets))]
	s.mu.Unlock()
	return s.post(c, d) != 0
}

// replayInBackground replays a random earlier delivery every interval
// until the returned stop, which returns how many were sent.
func (s *spray) replayInBackground(interval time.Duration) (stop func() int) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		n := 0
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				done <- n
				return
			case <-tick.C: // the replay pace
				if s.replayOne() {
					n++
				}
			}
		}
	}()
	return func() int { cancel(); return <-done }
}

// replayAll sends every delivery once more, in random order, each to a
// random replica, and returns how many were sent.
func (s *spray) replayAll() int {
	s.mu.Lock()
	all := append([]delivery(nil), s.seen...)
	s.rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	targets := s.targets
	picks := make([]int, len(all))
	for i := range picks {
		picks[i] = s.rng.IntN(len(targets))
	}
	s.mu.Unlock()
	n := 0
	for i, d := range all {
		if s.post(targets[picks[i]], d) != 0 {
			n++
		}
	}
	return n
}

func (s *spray) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.seen)
}

func (s *spray) dupCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dups
}

// finalStateMismatches compares, once the session writers committed every
// update, the last record of every session on the sessions topic with the
// sandbox's final state of the session (the newest webhook it sent), fails
// t for each that differs or is missing, and returns how many.
func finalStateMismatches(t testing.TB, r *Rig) int {
	t.Helper()
	bad := finalStateProblems(t, r)
	for _, p := range bad {
		t.Error(p)
	}
	return len(bad)
}

// finalStateProblems is finalStateMismatches' comparison: one line per
// session whose last record is not the sandbox's final state.
func finalStateProblems(t testing.TB, r *Rig) []string {
	t.Helper()
	final := map[string]*payapi.Session{}
	for _, d := range r.Sandbox.Webhooks(t) {
		wh, err := payapi.ParseWebhook(d.Body)
		if err != nil {
			t.Errorf("sandbox webhook %d: %v", d.ID, err)
			continue
		}
		s := wh.Session
		if f, ok := final[s.ID]; !ok || s.UpdatedAt.After(f.UpdatedAt) {
			final[s.ID] = &s
		}
	}
	awaitSessionWriters(t, r)
	last := lastSessionStates(t, r)
	var bad []string
	for id, f := range final {
		got, ok := last[id]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("session %s: no record on the sessions topic, want %s", id, f.Status))
		case got.Session.Status != f.Status || got.Session.UpdatedAt == nil || !got.Session.UpdatedAt.Equal(f.UpdatedAt):
			bad = append(bad, fmt.Sprintf("session %s: last record %s@%v (%s), want the final %s@%v", id, got.Session.Status,
				got.Session.UpdatedAt, got.Source, f.Status, f.UpdatedAt))
		}
	}
	sort.Strings(bad)
	return bad
}

// awaitSessionWriters waits until the session writers' group committed an
// offset past the last update of every partition of the session-updates
// topic written so far. Not its end offset: when a transaction (the
// pipeline's) wrote the last update, its commit marker takes the offset
// before the end, and a consumer commits past the records it read only.
func awaitSessionWriters(t testing.TB, r *Rig) {
	t.Helper()
	adm := kadm.NewClient(r.Client)
	topic, group := r.Topics["PAYSESSION_TOPIC_SESSION_UPDATES"], r.Connector.Env["PAYSESSION_KAFKA_GROUP_ID"]+"-sessions"
	want := map[int32]int64{}
	for _, rec := range readTopic(t, r, topic) {
		want[rec.Partition] = rec.Offset + 1
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		done, err := adm.FetchOffsets(ctx, group)
		cancel()
		caught := err == nil
		for p, o := range want {
			if c, ok := done.Lookup(topic, p); !ok || c.At < o {
				caught = false
			}
		}
		if caught {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("session writers did not commit every update of %s within 2m (%v)", topic, err)
		}
		time.Sleep(200 * time.Millisecond) // polling the group's offsets
	}
}

// lastSessionStates reads the sessions topic to its end (read_committed)
// and returns the last state of every session.
func lastSessionStates(t testing.TB, r *Rig) map[string]*codec.SessionState {
	t.Helper()
	dec, err := codec.NewDecoder(codec.DecoderConfig{Registry: r.Registry})
	if err != nil {
		t.Fatal(err)
	}
	last := map[string]*codec.SessionState{}
	var prev = map[string]codec.SessionVersion{}
	for _, rec := range readTopic(t, r, r.Topics["PAYSESSION_TOPIC_SESSIONS"]) {
		var st codec.SessionState
		if err := dec.DecodeRecord(context.Background(), rec.Value, &st); err != nil {
			t.Errorf("%s/%d/%d: %v", rec.Topic, rec.Partition, rec.Offset, err)
			continue
		}
		v := codec.VersionOf(&st)
		if p, ok := prev[v.SessionID]; ok && codec.Newer(p, v) {
			t.Errorf("session %s went back on the sessions topic at %d/%d", v.SessionID, rec.Partition, rec.Offset)
		}
		prev[v.SessionID] = v
		last[st.Session.ID] = &st
	}
	return last
}

// readTopic reads topic from its start to the end offsets it has now
// (read_committed) and returns its records, control records left out.
func readTopic(t testing.TB, r *Rig, topic string) []*kgo.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ends, err := kadm.NewClient(r.Client).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatalf("end offsets of %s: %v", topic, err)
	}
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			want[o.Partition] = o.Offset
		}
	})
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.Brokers...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out []*kgo.Record
	for len(want) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("reading %s: %v", topic, ctx.Err())
		}
		fs.EachRecord(func(rec *kgo.Record) {
			if rec.Offset+1 >= want[rec.Partition] {
				delete(want, rec.Partition)
			}
			if !rec.Attrs.IsControl() {
				out = append(out, rec)
			}
		})
	}
	return out
}
