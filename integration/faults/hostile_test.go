package faults_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/header"
	"github.com/paysession/paysession/internal/payapi"
)

// The parts of scenario 11 beside the valid traffic.
const (
	partAvro            = "crafted-avro"     // a 2^62 array block count; a schema id of another subject
	partMetadata        = "metadata"         // metadata above the bound; just under it on small state topics
	partIngressWithheld = "ingress-withheld" // webhooks of those states published without metadata
	partSlowBodies      = "slow-bodies"      // a webhook slow-body flood
	partWebhookBinding  = "webhook-binding"  // replayed, re-serialized, foreign-project, unknown-session webhooks
	partFlood           = "session-flood"    // one session's status_refresh flood
)

// hostileStateLimit is max.message.bytes of the session-updates and
// sessions topics of scenario 11: above every ordinary state, below a
// state holding metadata just under codec.MaxMetadataBytes.
const hostileStateLimit = 12 << 10

// hostileBoundSeconds bounds how long a valid command of scenario 11 waits
// from its produce to its result: two of the rig's 5 s batch deadlines (the
// batch in flight when it arrives, then its own), whatever runs beside it.
const hostileBoundSeconds = 10

// hostileProjectB is the second partner project of scenario 11's
// connector: webhooks of the default project's sessions are posted to its
// path too.
const hostileProjectB = "hostile-b"

// TestHostileTraffic is scenario 11 (issue 38): hostile traffic beside
// valid traffic. The connector reads Avro commands through a schema
// registry and serves a second project; the sandbox answers every call
// after 20 ms, and its webhooks reach the connector through a front that
// posts every third one to the second project's path first. While valid
// payouts flow (one every 100 ms), the connector gets:
//
//   - crafted Avro: a status_refresh whose writer schema (registered under
//     the command topic's subject, a compatible evolution with an optional
//     array of nulls) carries an array block count of 2^62, and one whose
//     schema id is registered under another subject only: both invalid,
//     with a dead letter;
//   - oversized metadata: payouts with metadata above codec.MaxMetadataBytes
//     (invalid, naming metadata) and just under it, whose states do not fit
//     the session-updates and sessions topics (12 KiB): accepted, their
//     states published without metadata under header paysession-withheld;
//   - a slow-body flood: connections that send a well-formed false
//     signature and trickle the body, more than the webhook port's publish
//     slots, for as long as the traffic runs: every genuine webhook is
//     answered 200;
//   - one session's command flood: status_refresh commands of one session
//     produced at once (scenario 10's flood);
//   - once the sandbox is idle and the dedupe window (2 s) has passed: every
//     delivered webhook replayed, re-serialized with other JSON bytes and
//     signed, and one rewritten for a session the connector never created
//     (ps_999999).
//
// The contract: every record one result (the flood and valid payouts
// accepted, the hostile records invalid), nothing lost or twice; every
// valid command answered within hostileBoundSeconds of its produce; no
// event on the webhook-events topic but one per webhook the sandbox sent
// (false webhook events 0), and every published state under its session's
// project.
func TestHostileTraffic(t *testing.T) {
	t.Parallel()
	beside := size("FAULTS_HOSTILE_PAYOUTS", 30, 200)
	flood := size("FAULTS_HOSTILE_FLOOD", 100, 1_000)
	slowConns := size("FAULTS_HOSTILE_SLOW_CONNECTIONS", 160, 600)
	bound := time.Duration(size("FAULTS_HOSTILE_BOUND_SECONDS", hostileBoundSeconds, hostileBoundSeconds)) * time.Second
	pace := 100 * time.Millisecond
	seed := seed()
	start := time.Now()
	t.Logf("scenario 11: %d payouts every %v beside a flood of %d status_refresh, %d slow-body connections; bound %v, seed %d",
		beside, pace, flood, slowConns, bound, seed)

	front := &hookFront{client: &http.Client{Timeout: 15 * time.Second}}
	frontSrv := httptest.NewServer(front)
	t.Cleanup(frontSrv.Close)
	limit := fmt.Sprint(hostileStateLimit)
	r := NewRig(t, RigOptions{
		Registry: true, WebhookURL: frontSrv.URL + webhookPath, ExtraProjects: []string{hostileProjectB},
		SandboxFlags: []string{"-latency", "20ms"},
		TopicConfigs: map[string]map[string]string{
			"PAYSESSION_TOPIC_SESSION_UPDATES": {"max.message.bytes": limit},
			"PAYSESSION_TOPIC_SESSIONS":        {"max.message.bytes": limit},
		},
		Env: map[string]string{"PAYSESSION_WEBHOOK_DEDUP_TTL": "2s", "PAYSESSION_WEBHOOK_BODY_TIMEOUT": "2s"},
	})
	front.target, front.foreign = r.Connector.WebhookURL, r.Connector.WebhookURL+"/"+hostileProjectB
	t.Logf("rig ready after %v", time.Since(start).Round(time.Millisecond))

	partOf := map[Position]string{}
	produce := func(part string, cmds ...Command) []Command {
		out := r.Produce(t, cmds...)
		for _, c := range out {
			partOf[c.At] = part
		}
		return out
	}
	key := func(part string, i int) string { return fmt.Sprintf("hostile-%s-%s-%05d", r.ID, part, i) }

	slow := startSlowBodies(r.Connector.Env["PAYSESSION_WEBHOOK_LISTEN_ADDR"], webhookPath, slowConns, 500*time.Millisecond)
	first := produce("valid", Command{Kind: codec.KindInitPayout, Key: key("session", 0), Value: Payout(30_000, "hostile")})
	r.Outcomes.AwaitAnswered(t, first, time.Minute)
	session := ""
	for s := range sessionsOf(r, first) {
		session = s
	}
	if session == "" {
		t.Fatal("the first payout's result names no session")
	}
	var floodCmds []Command
	for i := range flood {
		floodCmds = append(floodCmds, Command{Kind: codec.KindStatusRefresh, Key: key("flood", i),
			Value: fmt.Sprintf(`{"session_id":%q}`, session)})
	}
	produce(partFlood, floodCmds...)

	// The hostile records, one at each of these ticks of the valid flow.
	hostile := map[int]func(){}
	every := max(1, beside/8)
	at := func(n int, f func()) { hostile[n*every] = f }
	nearMeta := `{"note":"` + strings.Repeat("n", codec.MaxMetadataBytes-12) + `"}`
	overMeta := `{"note":"` + strings.Repeat("o", codec.MaxMetadataBytes) + `"}`
	withMeta := func(i int, meta string) string {
		p := Payout(int64(40_000+i), key("meta", i))
		return p[:len(p)-1] + `,"metadata":` + meta + `}`
	}
	at(1, func() {
		produce(partMetadata+"-over", Command{Kind: codec.KindInitPayout, Key: key("meta-over", 0), Value: withMeta(0, overMeta)})
	})
	at(2, func() {
		produce(partMetadata+"-near", Command{Kind: codec.KindInitPayout, Key: key("meta-near", 1), Value: withMeta(1, nearMeta)})
	})
	subject := r.Topic(codec.KindStatusRefresh) + "-value"
	crafted := registerSchema(t, r.Registry, subject, evolvedSchema(t, codec.KindStatusRefresh, arrayOfNullsField))
	foreign := registerSchema(t, r.Registry, "hostile-"+r.ID+"-other-value", evolvedSchema(t, codec.KindStatusRefresh, foreignField))
	at(3, func() {
		produce(partAvro+"-block-count", Command{Kind: codec.KindStatusRefresh, Key: key("avro-crafted", 0),
			Value: statusRefreshAvro(t, crafted, session, craftedTail())})
	})
	at(5, func() {
		produce(partAvro+"-other-subject", Command{Kind: codec.KindStatusRefresh, Key: key("avro-foreign", 0),
			Value: statusRefreshAvro(t, foreign, session, nullTail())})
	})
	at(4, func() {
		produce(partMetadata+"-over", Command{Kind: codec.KindInitPayout, Key: key("meta-over", 2), Value: withMeta(2, overMeta)})
	})
	at(6, func() {
		produce(partMetadata+"-near", Command{Kind: codec.KindInitPayout, Key: key("meta-near", 3), Value: withMeta(3, nearMeta)})
	})
	tick := time.NewTicker(pace)
	for i := range beside {
		<-tick.C // a steady flow of valid payouts beside the hostile traffic
		produce("valid", Command{Kind: codec.KindInitPayout, Key: key("payout", i), Value: Payout(int64(31_000+i), key("payout", i))})
		if f := hostile[i]; f != nil {
			f()
		}
	}
	tick.Stop()
	if !within(2*time.Minute, func() bool { return unanswered(r, r.Produced) == 0 }) {
		byPart := map[string]int{}
		for _, c := range r.Produced {
			if unanswered(r, []Command{c}) > 0 {
				byPart[partOf[c.At]]++
			}
		}
		t.Fatalf("records without a result 2m after the last was produced, by part: %v", byPart)
	}
	r.Sandbox.WaitIdle(t) // every webhook delivered while the slow bodies still hold connections
	opened, cut := slow.stop()
	t.Logf("slow-body flood: %d connections opened, %d cut off by the connector", opened, cut)
	checkRefusals(t, front)
	if opened < int64(slowConns) {
		t.Errorf("part %s: %d slow-body connections opened, want at least %d: the flood tested nothing", partSlowBodies, opened, slowConns)
	}

	forged := postForgedWebhooks(t, r, front)
	awaitSessionWriters(t, r)

	worst := hostileLatency(t, r, partOf, bound)
	executed := executedPayouts(t, r)
	row := Oracle(t, r, Row{Scenario: "11 hostile traffic", Seed: seed}, func(c Command, rs []Result) string {
		return hostileVerdict(partOf[c.At], executed)(c, rs)
	})
	for _, c := range r.Produced {
		if strings.HasPrefix(partOf[c.At], partAvro) && !answeredByDeadLetter(r, c) {
			row.Wrong++
			t.Errorf("part %s: %s at %v has no dead letter", partOf[c.At], c.Key, c.At)
		}
	}
	row.FalseWebhookEvents = falseWebhookEvents(t, r)
	checkWithheld(t, r, partOf)
	for _, d := range r.Sandbox.Webhooks(t) {
		if d.State != "delivered" {
			t.Errorf("part %s: sandbox webhook %d is %s, want delivered", partIngressWithheld, d.ID, d.State)
		}
	}
	t.Logf("webhooks: %d genuine deliveries (%d posted to project %s's path first), %d forged posts",
		len(front.deliveries()), front.foreigns, hostileProjectB, forged)
	answered, limit2 := Seconds(worst.Seconds()), Seconds(bound.Seconds())
	row.AnsweredSeconds, row.BoundSeconds = &answered, &limit2
	row.WallSeconds = time.Since(start).Seconds()
	Check(t, row)
}

// checkRefusals fails t for every genuine webhook the connector answered
// other than 200 while the slow bodies held their connections.
func checkRefusals(t testing.TB, front *hookFront) {
	t.Helper()
	for _, f := range front.refusals() {
		id := ""
		if wh, err := payapi.ParseWebhook(f.d.body); err == nil {
			id = wh.Session.ID
		}
		t.Errorf("part %s: the connector answered %d to a genuine webhook of session %s during the slow-body flood; want 200",
			partSlowBodies, f.code, id)
	}
}

// partCommands returns the produced records of part.
func partCommands(r *Rig, partOf map[Position]string, part string) []Command {
	var out []Command
	for _, c := range r.Produced {
		if partOf[c.At] == part {
			out = append(out, c)
		}
	}
	return out
}

// hostileVerdict is scenario 11's rule for a record of part.
func hostileVerdict(part string, executed map[string]payoutExecution) Verdict {
	switch {
	case part == "valid" || part == partMetadata+"-near":
		return acceptedWithSession(executed)
	case part == partFlood:
		return acceptedOnce
	case part == partMetadata+"-over":
		return func(c Command, rs []Result) string {
			if rs[0].Status != codec.StatusInvalid || deref(rs[0].ErrorField) != "metadata" {
				return fmt.Sprintf("part %s: want invalid naming metadata, got %s %s field %q", part, rs[0].Status,
					deref(rs[0].ErrorCode), deref(rs[0].ErrorField))
			}
			return ""
		}
	default: // the crafted Avro records
		return func(c Command, rs []Result) string {
			if rs[0].Status != codec.StatusInvalid {
				return fmt.Sprintf("part %s: want invalid, got %s %s", part, rs[0].Status, deref(rs[0].ErrorCode))
			}
			return ""
		}
	}
}

// hostileLatency returns the longest a valid command (a payout beside the
// hostile traffic) waited from its produce to its result, failing t when
// it exceeds bound.
func hostileLatency(t testing.TB, r *Rig, partOf map[Position]string, bound time.Duration) time.Duration {
	t.Helper()
	bySource := map[Position]Result{}
	for _, res := range r.Outcomes.Results() {
		bySource[res.Source()] = res
	}
	var waits []time.Duration
	for _, c := range r.Produced {
		if p := partOf[c.At]; p != "valid" && p != partMetadata+"-near" {
			continue
		}
		res, ok := bySource[c.At]
		if !ok || res.RecordTimestamp == nil {
			t.Errorf("valid command %s at %v: no result with its record's timestamp", c.Key, c.At)
			continue
		}
		waits = append(waits, res.CompletedAt.Sub(*res.RecordTimestamp))
	}
	if len(waits) == 0 {
		return -1
	}
	slices.Sort(waits)
	worst := waits[len(waits)-1]
	t.Logf("valid commands answered after p50 %v, max %v; bound %v", waits[len(waits)/2].Round(time.Millisecond),
		worst.Round(time.Millisecond), bound)
	return worst
}

// postForgedWebhooks sends, once the dedupe window of every genuine
// delivery has passed, every delivery the front forwarded again (the
// replays), each re-serialized and signed, and one rewritten for a session
// the connector never created; it returns how many it posted.
func postForgedWebhooks(t testing.TB, r *Rig, front *hookFront) int {
	t.Helper()
	ttl, err := time.ParseDuration(r.Connector.Env["PAYSESSION_WEBHOOK_DEDUP_TTL"])
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(ttl + time.Second) // the connector's dedupe window runs on its own clock: wait it out
	forger := newWebhookForger(t, r.Sandbox)
	genuine := front.deliveries()
	if len(genuine) == 0 {
		t.Fatalf("part %s: the sandbox delivered no webhook to forge from", partWebhookBinding)
	}
	var forged []delivery
	for _, d := range genuine {
		forged = append(forged, d, forger.reserialized(t, d))
	}
	forged = append(forged, forger.ofUnknownSession(t, genuine[0]))
	codes := map[int]int{}
	for _, d := range forged {
		codes[postWebhook(front.client, r.Connector.WebhookURL, d)]++
	}
	t.Logf("forged webhooks answered: %v (status: count)", codes)
	return len(forged)
}

// webhookMeaning is what a webhook event says, whatever its bytes: its
// session, type, status and time.
func webhookMeaning(session, typ, status string, updated *time.Time) string {
	u := ""
	if updated != nil {
		u = updated.UTC().Format(time.RFC3339Nano)
	}
	return session + "|" + typ + "|" + status + "|" + u
}

// falseWebhookEvents counts the records of the webhook-events topic that
// are not the first of a webhook the sandbox sent (compared by meaning,
// not by event id), and the states on the sessions topic that name a
// project other than the sandbox's, the only one its sessions live in. It
// fails t once per kind of false event, with the count and an example.
func falseWebhookEvents(t testing.TB, r *Rig) int {
	t.Helper()
	sent := map[string]bool{}
	for _, d := range r.Sandbox.Webhooks(t) {
		wh, err := payapi.ParseWebhook(d.Body)
		if err != nil {
			t.Errorf("sandbox webhook %d: %v", d.ID, err)
			continue
		}
		sent[webhookMeaning(wh.Session.ID, wh.Type, wh.Session.Status, &wh.Session.UpdatedAt)] = true
	}
	dec, err := codec.NewDecoder(codec.DecoderConfig{Registry: r.Registry})
	if err != nil {
		t.Fatal(err)
	}
	count, example := map[string]int{}, map[string]string{}
	note := func(kind string, rec *kgo.Record, what string) {
		if count[kind]++; count[kind] == 1 {
			example[kind] = fmt.Sprintf("%s at %d/%d", what, rec.Partition, rec.Offset)
		}
	}
	seen := map[string]bool{}
	for _, rec := range readTopic(t, r, r.Topics["PAYSESSION_TOPIC_WEBHOOK_EVENTS"]) {
		var ev codec.WebhookEvent
		if err := dec.DecodeRecord(t.Context(), rec.Value, &ev); err != nil {
			t.Errorf("webhook event at %d/%d: %v", rec.Partition, rec.Offset, err)
			continue
		}
		m := webhookMeaning(ev.SessionID, ev.Type, ev.Session.Status, ev.Session.UpdatedAt)
		switch {
		case !sent[m]:
			note("events the sandbox never sent", rec, m)
		case seen[m]:
			note("events published again (replayed or re-serialized)", rec, m)
		}
		seen[m] = true
	}
	for _, rec := range readTopic(t, r, r.Topics["PAYSESSION_TOPIC_SESSIONS"]) {
		var st codec.SessionState
		if err := dec.DecodeRecord(t.Context(), rec.Value, &st); err != nil {
			t.Errorf("session state at %d/%d: %v", rec.Partition, rec.Offset, err)
			continue
		}
		if st.Project != nil && *st.Project != r.Sandbox.Project {
			note("states under a project not the session's", rec, fmt.Sprintf("%s under %s", st.Session.ID, *st.Project))
		}
	}
	n := 0
	for kind, c := range count {
		n += c
		t.Errorf("part %s: %d %s, e.g. %s", partWebhookBinding, c, kind, example[kind])
	}
	return n
}

// checkWithheld fails t unless every state on the sessions topic of a
// session whose payout carried metadata just under the bound was published
// without its metadata and says so in header.Withheld.
func checkWithheld(t testing.TB, r *Rig, partOf map[Position]string) {
	t.Helper()
	near := sessionsOf(r, partCommands(r, partOf, partMetadata+"-near"))
	if len(near) == 0 {
		t.Errorf("part %s: no session of a payout with metadata near the bound", partMetadata)
		return
	}
	dec, err := codec.NewDecoder(codec.DecoderConfig{Registry: r.Registry})
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]int{}
	for _, rec := range readTopic(t, r, r.Topics["PAYSESSION_TOPIC_SESSIONS"]) {
		var st codec.SessionState
		if err := dec.DecodeRecord(t.Context(), rec.Value, &st); err != nil || !near[st.Session.ID] {
			continue
		}
		states[st.Session.ID]++
		v, ok := header.Get(rec, header.Withheld)
		kept := slices.ContainsFunc(st.Session.Operations, func(o codec.Operation) bool { return o.Metadata != nil })
		if !ok || v != "metadata" || kept {
			t.Errorf("part %s: session %s's %s state at %d/%d: header %s=%q, metadata kept %v; want withheld", partMetadata,
				st.Session.ID, st.Source, rec.Partition, rec.Offset, header.Withheld, v, kept)
		}
	}
	for s := range near {
		if states[s] == 0 {
			t.Errorf("part %s: session %s has no state on the sessions topic", partMetadata, s)
		}
	}
}
