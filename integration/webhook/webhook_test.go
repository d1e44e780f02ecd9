package webhook

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector/reconcile"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/paysim"
	"github.com/paysession/paysession/internal/signing"
)

// TestEveryWebhookTypeArrivesOnce drives sessions through every webhook of
// the spec and checks each is one webhook-event, and the last session
// state is the one the last webhook carried.
func TestEveryWebhookTypeArrivesOnce(t *testing.T) {
	g := newRig(t, rigOpts{})
	ctx := context.Background()
	tests := []struct {
		name   string
		drive  func(t *testing.T) string // returns the session id
		types  []string
		status string // last session status
	}{
		{"payout finished", func(t *testing.T) string { return g.payout(t, cardOK, 10000).ID },
			[]string{"payment_finished"}, "accepted"},
		{"payout confirmed", func(t *testing.T) string {
			s := g.payout(t, cardOK, confirmAbove)
			g.idle(t)
			must(t)(g.api.Confirm(ctx, s.ID))
			return s.ID
		}, []string{"ready_to_confirm", "payment_finished"}, "accepted"},
		{"3-D Secure", func(t *testing.T) string { return g.payment(t, card3DS, 5000).ID },
			[]string{"action_required"}, ""},
		{"hold and capture", func(t *testing.T) string {
			s := g.payment(t, cardHold, 7000)
			g.idle(t)
			must(t)(g.api.Capture(ctx, payapi.CaptureRequest{SessionID: s.ID}))
			return s.ID
		}, []string{"ready_to_capture", "payment_finished"}, "accepted"},
		{"refund", func(t *testing.T) string {
			s := g.payment(t, cardOK, 9000)
			g.idle(t)
			must(t)(g.api.Refund(ctx, payapi.RefundRequest{SessionID: s.ID}))
			return s.ID
		}, []string{"payment_finished", "payment_refunded"}, "accepted"},
		{"chargeback", func(t *testing.T) string {
			s := g.payment(t, cardOK, 9100)
			g.idle(t)
			g.chargeback(t, s.ID)
			return s.ID
		}, []string{"payment_finished", "payment_refunded"}, "accepted"},
		{"declined", func(t *testing.T) string { return g.payment(t, cardDecline, 100).ID },
			[]string{"payment_finished"}, "accepted"},
	}
	ids := map[string]string{}
	for _, tc := range tests {
		ids[tc.name] = tc.drive(t)
		g.idle(t)
	}
	events := g.readAll(t, g.events)
	states := g.readAll(t, g.sessions)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := ids[tc.name]
			var types []string
			seen := map[string]bool{}
			for _, r := range events {
				if ev := decodeEvent(t, r); ev.SessionID == id {
					types = append(types, ev.Type)
					if seen[ev.EventID] {
						t.Errorf("event %s published twice", ev.EventID)
					}
					seen[ev.EventID] = true
					if string(r.Key) != id || ev.APIVersion != 1 {
						t.Errorf("event key %s version %d", r.Key, ev.APIVersion)
					}
				}
			}
			if !slices.Equal(types, tc.types) {
				t.Fatalf("webhook events %v, want %v", types, tc.types)
			}
			var last *codec.SessionState
			for _, r := range states {
				if string(r.Key) == id {
					last = decodeState(t, r)
				}
			}
			if last == nil || last.Source != codec.SourceWebhook || *last.WebhookType != tc.types[len(tc.types)-1] {
				t.Fatalf("last session state %+v", last)
			}
			if tc.status != "" && last.Session.Status != tc.status {
				t.Fatalf("last status %s, want %s", last.Session.Status, tc.status)
			}
			assertNoCardData(t, events, states)
		})
	}
}

func assertNoCardData(t *testing.T, sets ...[]*kgo.Record) {
	t.Helper()
	for _, recs := range sets {
		for _, r := range recs {
			for _, pan := range []string{cardOK, cardDecline, card3DS, cardHold, `"123"`} {
				if bytes.Contains(r.Value, []byte(pan)) {
					t.Fatalf("record %s/%d carries card data", r.Topic, r.Offset)
				}
			}
		}
	}
}

// TestRejectedRequestsPublishNothing sends forged, tampered, unsigned,
// oversized and malformed requests to the real HTTP endpoint.
func TestRejectedRequestsPublishNothing(t *testing.T) {
	g := newRig(t, rigOpts{})
	forger, err := signing.GenerateKey(2048)
	if err != nil {
		t.Fatal(err)
	}
	// A session of the sandbox's without webhooks of its own: the
	// connector publishes webhooks only for sessions the service has.
	created, err := g.api.CreateSession(context.Background(), payapi.CreateSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	good := []byte(`{"type":"payment_finished","session":{"id":"` + created.ID + `","status":"accepted",` +
		`"created_at":"2026-11-23T10:00:00.000000Z","updated_at":"2026-11-23T10:00:01.000000Z","payments":[]}}`)
	sign := func(k any, b []byte) string {
		s, err := signing.NewRSASigner(k.(*rsaKey), signing.PKCS1v15).Sign(b)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	malformed := []byte(`{"type":"payment_finished","session":`)
	tests := []struct {
		name   string
		method string
		ctype  string
		body   []byte
		sig    string
		want   int
	}{
		{"forged", "POST", "application/json", good, sign(forger, good), 401},
		{"tampered", "POST", "application/json", bytes.Replace(good, []byte("accepted"), []byte("canceled"), 1), sign(serviceKey, good), 401},
		{"unsigned", "POST", "application/json", good, "", 401},
		{"oversized", "POST", "application/json", append(good, bytes.Repeat([]byte(" "), 2<<20)...), sign(serviceKey, good), 413},
		{"malformed", "POST", "application/json", malformed, sign(serviceKey, malformed), 400},
		{"not json", "POST", "text/plain", good, sign(serviceKey, good), 415},
		{"get", "GET", "application/json", nil, "", 405},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, g.url, bytes.NewReader(tc.body))
			req.Header.Set("Content-Type", tc.ctype)
			if tc.sig != "" {
				req.Header.Set("X-PARTNER-SIGN", tc.sig)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("HTTP %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
	// A valid webhook last: the topics hold exactly its records, so none
	// of the rejected ones was published before it.
	req, _ := http.NewRequest("POST", g.url, bytes.NewReader(good))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-PARTNER-SIGN", sign(serviceKey, good))
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("valid webhook: %v %v", err, resp)
	}
	resp.Body.Close()
	if n, m := len(g.readAll(t, g.events)), len(g.readAll(t, g.sessions)); n != 1 || m != 1 {
		t.Fatalf("published %d events and %d states, want 1 and 1", n, m)
	}
}

// TestKafkaDownThenRedeliveryPublishedOnce stops a dedicated broker: the
// webhook gets 503; once Kafka is back the sandbox's retry gets 200 and the
// webhook is one event. Then Kafka stays down longer than the sandbox's
// 30-minute retry window: the reconciler still publishes the final state.
func TestKafkaDownThenRedeliveryPublishedOnce(t *testing.T) {
	b := harness.StartTestBroker(t, nil)
	g := newRig(t, rigOpts{brokers: []string{b.Addr()}, publishTimeout: time.Second, deliveryTimeout: 2 * time.Second})
	probe := harness.Topic(t, g.admin, 1)
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
	s := g.payout(t, cardOK, 12000)
	g.idle(t)
	att := g.attempts()
	if len(att) != 1 || att[0].code != http.StatusServiceUnavailable {
		t.Fatalf("attempts with Kafka down: %+v, want one 503", codes(att))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, time.Minute, "Kafka accepts records again", func() bool {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return g.prod.ProduceSync(pctx, &kgo.Record{Topic: probe, Value: []byte("probe")}).FirstErr() == nil
	})
	harness.Eventually(t, time.Minute, "sandbox retry accepted", func() bool {
		g.sim.Advance(30 * time.Second)
		g.idle(t)
		att := g.attempts()
		return att[len(att)-1].code == http.StatusOK
	})
	var events int
	for _, r := range g.readAll(t, g.events) {
		if string(r.Key) == s.ID {
			events++
		}
	}
	if events != 1 {
		t.Fatalf("%d webhook events for %s, want 1 (attempts %v)", events, s.ID, codes(g.attempts()))
	}
	t.Logf("webhook attempts: %v", codes(g.attempts()))
	kafkaDownPastRetryWindow(t, g, b, probe)
}

// kafkaDownPastRetryWindow: every delivery of a session's webhook gets 503
// until the sandbox gives up; once Kafka is back the reconciler polls the
// session and its final state reaches the sessions topic.
func kafkaDownPastRetryWindow(t *testing.T, g *rig, b *harness.Broker, probe string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := g.sim.SetFaults(paysimRefuseAll()); err != nil {
		t.Fatal(err)
	}
	s := g.payout(t, cardOK, 13000)
	g.idle(t)
	g.publishResponse(t, s) // the pipeline's record of the API response
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := g.sim.SetFaults(paysim.Faults{}); err != nil {
		t.Fatal(err)
	}
	before := len(g.attempts())
	g.advance(t, 31*time.Minute, time.Minute) // every retry gets 503, then the sandbox gives up
	for _, a := range g.attempts()[before:] {
		if a.code != http.StatusServiceUnavailable {
			t.Fatalf("attempt with Kafka down answered %d", a.code)
		}
	}
	if len(g.attempts()) == before {
		t.Fatal("no delivery attempt reached the ingress")
	}
	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, time.Minute, "Kafka accepts records again", func() bool {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return g.prod.ProduceSync(pctx, &kgo.Record{Topic: probe, Value: []byte("probe")}).FirstErr() == nil
	})
	r := g.newReconciler(t, reconcile.ConfirmPolicy{})
	harness.Eventually(t, time.Minute, "reconciler brought the session to its final state", func() bool {
		return r.Ready(ctx) == nil && r.OpenSessions() == 0
	})
	var final *codec.SessionState
	events := 0
	for _, rec := range g.readAll(t, g.sessions) {
		if string(rec.Key) == s.ID {
			final = decodeState(t, rec)
		}
	}
	for _, rec := range g.readAll(t, g.events) {
		if string(rec.Key) == s.ID {
			events++
		}
	}
	if final == nil || !reconcile.Settled(&final.Session) || events > 1 {
		t.Fatalf("last state %+v, %d events", final, events)
	}
	t.Logf("final state of %s from %s; %d webhook events", s.ID, final.Source, events)
}

func codes(ds []delivery) []int {
	var out []int
	for _, d := range ds {
		out = append(out, d.code)
	}
	return out
}

// TestReconcilerFinishesSessionsAfterWebhooksGiveUp refuses every webhook
// for longer than the sandbox's 30-minute retry window: the reconciler
// polls every session to its final state, auto-confirms the payout its
// rules allow and warns about the one left to upstream before the sandbox
// cancels it at 240 minutes.
func TestReconcilerFinishesSessionsAfterWebhooksGiveUp(t *testing.T) {
	g := newRig(t, rigOpts{})
	if err := g.sim.SetFaults(paysimRefuseAll()); err != nil {
		t.Fatal(err)
	}
	r := g.newReconciler(t, reconcile.ConfirmPolicy{Mode: reconcile.ConfirmAuto,
		AutoKinds: []codec.OperationKind{codec.OperationPayout}, AutoMaxAmount: 2 * confirmAbove})
	upstream := g.payout(t, cardOK, 3*confirmAbove) // above the auto rule: left to upstream, never confirmed
	sessions := []*payapi.Session{
		g.payout(t, cardOK, 10000),
		g.payout(t, cardOK, confirmAbove+1), // waits for confirm: the reconciler confirms it
		g.payment(t, cardOK, 5000),
		g.payment(t, cardDecline, 5000),
		g.payment(t, card3DS, 5000), // canceled by the sandbox after 60 minutes
		upstream,
	}
	for _, s := range sessions {
		g.publishResponse(t, s) // what the pipeline publishes from the API response
	}
	g.idle(t)
	harness.Eventually(t, 30*time.Second, "reconciler loaded the sessions", func() bool { return r.OpenSessions() == len(sessions) })
	g.advance(t, 65*time.Minute, time.Minute)
	harness.Eventually(t, 60*time.Second, "every session but the upstream one final", func() bool {
		g.sim.Advance(time.Second)
		return r.OpenSessions() == 1
	})
	g.advance(t, 150*time.Minute, 10*time.Minute) // 215 minutes: inside the warning window
	harness.Eventually(t, 30*time.Second, "confirm deadline warning", func() bool {
		return hasWarning(g.readAll(t, g.sessions), upstream.ID)
	})
	g.advance(t, 30*time.Minute, 5*time.Minute) // past the 240-minute deadline: the sandbox cancels
	harness.Eventually(t, 60*time.Second, "the upstream session final too", func() bool {
		g.sim.Advance(time.Minute)
		return r.OpenSessions() == 0
	})
	last := map[string]*codec.SessionState{}
	for _, rec := range g.readAll(t, g.sessions) {
		last[string(rec.Key)] = decodeState(t, rec)
	}
	for _, s := range sessions {
		st := last[s.ID]
		if st == nil || !reconcile.Settled(&st.Session) || st.Source == codec.SourceWebhook {
			t.Errorf("session %s: last state %+v", s.ID, st)
		}
	}
	for _, a := range g.attempts() {
		t.Errorf("a refused webhook reached the ingress: %s", a.body)
	}
	if n := len(g.readAll(t, g.events)); n != 0 {
		t.Fatalf("%d webhook events with the endpoint down", n)
	}
}

func hasWarning(recs []*kgo.Record, sessionID string) bool {
	for _, r := range recs {
		if string(r.Key) != sessionID {
			continue
		}
		for _, h := range r.Headers {
			if h.Key == reconcile.HeaderWarning && string(h.Value) == reconcile.WarningConfirmDeadline {
				return true
			}
		}
	}
	return false
}

// TestReplayedOldWebhooksNeverMoveStateBack replays the webhooks of a
// session oldest-last, to the same connector and to a restarted one.
func TestReplayedOldWebhooksNeverMoveStateBack(t *testing.T) {
	g := newRig(t, rigOpts{})
	ctx := context.Background()
	s := g.payment(t, cardHold, 8000)
	g.idle(t)
	must(t)(g.api.Capture(ctx, payapi.CaptureRequest{SessionID: s.ID}))
	g.idle(t)
	g.sim.Advance(time.Minute)
	must(t)(g.api.Refund(ctx, payapi.RefundRequest{SessionID: s.ID}))
	g.idle(t)
	sent := g.attempts()
	if len(sent) != 3 {
		t.Fatalf("%d webhooks, want ready_to_capture, payment_finished, payment_refunded", len(sent))
	}
	replay := func(label string) {
		for i := len(sent) - 2; i >= 0; i-- { // every older one, newest first
			req, _ := http.NewRequest("POST", g.url, bytes.NewReader(sent[i].body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-PARTNER-SIGN", sent[i].sig)
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("%s replay %d: %v %v", label, i, err, resp)
			}
			resp.Body.Close()
		}
	}
	replay("same connector")
	// A restarted connector: new ingress (empty dedupe cache) and a new
	// session writer that takes the partitions over from the first.
	fresh := g.newIngress(t, g.newWriter(t, "restarted"), 2*time.Second, 0)
	g.mu.Lock()
	g.target = fresh
	g.mu.Unlock()
	replay("restarted connector")

	var prev *codec.SessionVersion
	var statesOfSession []string
	for _, rec := range g.readAll(t, g.sessions) {
		if string(rec.Key) != s.ID {
			continue
		}
		st := decodeState(t, rec)
		v := codec.VersionOf(st)
		statesOfSession = append(statesOfSession, fmt.Sprintf("%s/%s@%s", st.Source, st.Session.Status, v.UpdatedAt.Format("15:04:05.000000")))
		if prev != nil && codec.Newer(*prev, v) {
			t.Fatalf("state went backwards: %s", strings.Join(statesOfSession, " → "))
		}
		prev = &v
	}
	if len(statesOfSession) != 3 {
		t.Fatalf("states %v, want the three webhook states once each", statesOfSession)
	}
}
