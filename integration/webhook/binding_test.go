package webhook

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/paysession/paysession/connector/ingress"
	"github.com/paysession/paysession/internal/signing"
)

// TestWebhooksBoundToOurSessionsAndTheirProject reproduces issue 38 item 4
// on the real broker, the sandbox and the session writer; each step was
// published on the code before:
//   - project A's webhook posted to project B's path: not published under
//     project B (it was, relabelled, and the reconciler then dropped the
//     session);
//   - a validly signed webhook of a session the service does not have
//     (ps_999999): no event (it was published as payment_finished);
//   - the same event serialized anew: no second event id;
//   - the last webhook replayed after the dedupe window (ingress and
//     writer): no second event (it was published again as a new event).
//     Beyond the horizon such a replay is dropped as stale, as before
//     (TestWriterRemembersOnlyTheHorizon; a record dated that far from the
//     broker's clock is refused by it here).
//
// Each is answered 200, as the spec asks of every webhook.
func TestWebhooksBoundToOurSessionsAndTheirProject(t *testing.T) {
	g := newRig(t, rigOpts{})
	s := g.payout(t, cardOK, 10000) // project A: the rig's default project
	g.idle(t)
	sent := g.attempts()
	if len(sent) != 1 || sent[0].code != http.StatusOK {
		t.Fatalf("webhooks %d (want payment_finished, answered 200)", len(sent))
	}
	finished := sent[0]
	eventID := ingress.EventID(finished.body)
	post := func(t *testing.T, in http.Handler, path string, body []byte) {
		t.Helper()
		rec := httptest.NewRecorder()
		in.ServeHTTP(rec, httptestRequest(t, g.url+path, delivery{body: body, sig: mustSign(t, body)}))
		if rec.Code != http.StatusOK {
			t.Fatalf("answered %d, want 200", rec.Code)
		}
	}
	updatesOf := func(t *testing.T, id string) (n int, projects []string) {
		t.Helper()
		for _, r := range g.readAll(t, g.updates) {
			if string(r.Key) == id {
				n++
				if st := decodeState(t, r); st.Project != nil {
					projects = append(projects, *st.Project)
				}
			}
		}
		return n, projects
	}
	eventsOf := func(t *testing.T, id string) map[string]int {
		t.Helper()
		ids := map[string]int{}
		for _, r := range g.readAll(t, g.events) {
			if ev := decodeEvent(t, r); ev.SessionID == id {
				ids[ev.EventID]++
			}
		}
		return ids
	}

	t.Run("another project's path", func(t *testing.T) {
		before, _ := updatesOf(t, s.ID)
		// Replicas without the first one's dedupe cache: one whose writer
		// holds the session, one that asks session/status under projectB.
		post(t, g.newIngress(t, g.writer, 2*time.Second, 0), "/"+projectB, finished.body)
		post(t, g.newIngress(t, nil, 2*time.Second, 0), "/"+projectB, finished.body)
		if n, projects := updatesOf(t, s.ID); n != before || len(projects) != 0 {
			t.Fatalf("updates of %s: %d (before %d), projects %v; want none more, none naming %s", s.ID, n, before, projects, projectB)
		}
		if _, last := g.lastState(t, s.ID); last.Project != nil {
			t.Fatalf("last state of %s names project %s, want the default project", s.ID, *last.Project)
		}
	})

	t.Run("a session the service does not have", func(t *testing.T) {
		forged := strings.ReplaceAll(string(finished.body), s.ID, "ps_999999")
		post(t, g.ingress, "", []byte(forged))
		if n, _ := updatesOf(t, "ps_999999"); n != 0 {
			t.Fatalf("%d updates of ps_999999, want none", n)
		}
		if ids := eventsOf(t, "ps_999999"); len(ids) != 0 {
			t.Fatalf("events of ps_999999: %v, want none", ids)
		}
	})

	t.Run("the same event serialized anew", func(t *testing.T) {
		var v map[string]any
		if err := json.Unmarshal(finished.body, &v); err != nil {
			t.Fatal(err)
		}
		v["resent"] = true
		again, err := json.MarshalIndent(v, "", "  ") // members sorted, indented, a member added
		if err != nil {
			t.Fatal(err)
		}
		post(t, g.ingress, "", again)
		// A restarted replica: no dedupe cache; the session writer sees the id.
		fresh := g.newIngress(t, g.writer, 2*time.Second, 0)
		rec := httptest.NewRecorder()
		fresh.ServeHTTP(rec, httptestRequest(t, g.url, delivery{body: again, sig: mustSign(t, again)}))
		if rec.Code != http.StatusOK {
			t.Fatalf("restarted replica answered %d", rec.Code)
		}
		if ids := eventsOf(t, s.ID); len(ids) != 1 || ids[eventID] != 1 {
			t.Fatalf("events of %s: %v, want %s once", s.ID, ids, eventID)
		}
	})

	t.Run("replayed after the dedupe window", func(t *testing.T) {
		g.sim.Advance(26 * time.Hour) // the ingress's and the writer's clock: past both windows
		post(t, g.ingress, "", finished.body)
		fresh := g.newIngress(t, g.writer, 2*time.Second, 0)
		rec := httptest.NewRecorder()
		fresh.ServeHTTP(rec, httptestRequest(t, g.url, finished))
		if rec.Code != http.StatusOK {
			t.Fatalf("restarted replica answered %d", rec.Code)
		}
		if ids := eventsOf(t, s.ID); len(ids) != 1 || ids[eventID] != 1 {
			t.Fatalf("events of %s after the replay: %v, want %s once", s.ID, ids, eventID)
		}
		if n := len(g.statesOf(t, s.ID)); n != 1 {
			t.Fatalf("%d states of %s, want the one of its webhook", n, s.ID)
		}
	})
}

func mustSign(t *testing.T, body []byte) string {
	t.Helper()
	sig, err := signing.NewRSASigner(serviceKey, signing.PKCS1v15).Sign(body)
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	return sig
}
