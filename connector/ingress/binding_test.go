package ingress

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// postTo posts a signed webhook to path and returns the answer.
func (f *fixture) postTo(t *testing.T, path string, b []byte) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderSignature, sign(t, f.key, b))
	rec := httptest.NewRecorder()
	f.in.ServeHTTP(rec, req)
	return rec
}

// projectOfLast returns the project of the last update published ("" for
// none: the default project).
func (f *fixture) projectOfLast(t *testing.T) string {
	t.Helper()
	var st codec.SessionState
	if err := json.Unmarshal(f.prod.last(updatesTopic).Value, &st); err != nil {
		t.Fatal(err)
	}
	if st.Project == nil {
		return ""
	}
	return *st.Project
}

// TestWebhooksBoundToTheSessionsProject: a webhook is published only for a
// session the connector holds (the session writer's lookup) or that
// session/status under the path's project finds, naming the session's
// project; a webhook of project A's session at project B's path, or of a
// session the service does not have, is answered 200 and publishes nothing
// (issue 38 item 4: on the code before, both were published, the first
// relabelled with project B).
func TestWebhooksBoundToTheSessionsProject(t *testing.T) {
	tests := []struct {
		name, path, session string
		wantCode            int
		wantVerdict         string
		wantProject         string // of the update published, when one is
		wantCalls           int    // session/status calls
	}{
		{"held, at its project's path", "/webhooks/pa", "ps_held_a", 200, verdictAccepted, "pa", 0},
		{"held, at another project's path", "/webhooks/pb", "ps_held_a", 200, verdictForeignProject, "", 0},
		{"held by the default project, at a project's path", "/webhooks/pb", "ps_held_main", 200, verdictForeignProject, "", 0},
		{"held by the default project, at the base path", "/webhooks", "ps_held_main", 200, verdictAccepted, "", 0},
		{"held naming the default project by id", "/webhooks", "ps_held_named_main", 200, verdictAccepted, "main", 0},
		{"not held, found under the path's project", "/webhooks/pa", "ps_api_a", 200, verdictAccepted, "pa", 1},
		{"not held, of another project than the path's", "/webhooks/pb", "ps_api_a", 200, verdictUnknownSession, "", 1},
		{"not held, default project at the base path", "/webhooks", "ps_api_main", 200, verdictAccepted, "", 1},
		{"a session the service does not have", "/webhooks", "ps_999999", 200, verdictUnknownSession, "", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, func(c *Config) {
				c.DefaultProject, c.Projects = "main", []string{"pa", "pb"}
				c.Sessions = fakeSessions{"ps_held_a": "pa", "ps_held_main": "", "ps_held_named_main": "main"}
			})
			f.api.everywhere = false
			f.api.sessions = map[string]string{"ps_api_a": "pa", "ps_api_main": ""}
			rec := f.postTo(t, tc.path, body("payment_finished", tc.session, "accepted", 5))
			if rec.Code != tc.wantCode {
				t.Fatalf("status %d, want %d", rec.Code, tc.wantCode)
			}
			if n := counterValue(t, f.reg, "paysession_webhook_requests_total",
				map[string]string{"type": "payment_finished", "verdict": tc.wantVerdict}); n != 1 {
				t.Fatalf("verdict %s counted %v times, want 1", tc.wantVerdict, n)
			}
			if got := f.api.callCount(); got != tc.wantCalls {
				t.Errorf("%d session/status calls, want %d", got, tc.wantCalls)
			}
			if tc.wantVerdict != verdictAccepted {
				if f.prod.produced != 0 {
					t.Fatalf("published %d records for a webhook not bound to a session", f.prod.produced)
				}
				return
			}
			if got := f.projectOfLast(t); got != tc.wantProject {
				t.Fatalf("published under project %q, want %q", got, tc.wantProject)
			}
		})
	}
}

// TestConfirmedSessionIsAskedOnce: once session/status found a session,
// its next webhooks are bound without asking again, and at another
// project's path they are foreign.
func TestConfirmedSessionIsAskedOnce(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Projects = []string{"pa", "pb"} })
	f.api.everywhere = false
	f.api.sessions = map[string]string{"ps_1": "pa"}
	for i, step := range []struct {
		path, verdict string
	}{{"/webhooks/pa", verdictAccepted}, {"/webhooks/pa", verdictAccepted}, {"/webhooks/pb", verdictForeignProject}} {
		if rec := f.postTo(t, step.path, body("payment_finished", "ps_1", "accepted", 5+i)); rec.Code != 200 {
			t.Fatalf("webhook %d: status %d", i, rec.Code)
		}
	}
	if n := f.api.callCount(); n != 1 {
		t.Fatalf("%d session/status calls, want 1", n)
	}
	if n := counterValue(t, f.reg, "paysession_webhook_requests_total", map[string]string{"type": "payment_finished", "verdict": verdictForeignProject}); n != 1 {
		t.Fatalf("foreign_project counted %v times, want 1", n)
	}
}

// TestSessionChecksAreBounded: session/status calls are bounded in number
// (MaxChecks) and in time (CheckTimeout): a webhook beyond the bound, or
// whose call fails or times out, gets 503 (the service resends it) and
// publishes nothing, and meanwhile webhooks of held sessions are answered
// 200 without waiting.
func TestSessionChecksAreBounded(t *testing.T) {
	f := newFixture(t, func(c *Config) {
		c.MaxChecks, c.CheckTimeout = 2, time.Minute
		c.Sessions = fakeSessions{"ps_held": ""}
	})
	hold := make(chan struct{})
	f.api.hold = hold
	var wg sync.WaitGroup
	codes := make(chan int, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- f.postTo(t, "/webhooks", body("payment_finished", "ps_unknown_"+string(rune('a'+i)), "accepted", 5)).Code
		}()
	}
	waitFor(t, "two session/status calls in flight", func() bool { return f.api.callCount() == 2 })
	rec := f.postTo(t, "/webhooks", body("payment_finished", "ps_unknown_c", "accepted", 5))
	if rec.Code != 503 || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("a webhook beyond MaxChecks: status %d, Retry-After %q; want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	if rec := f.postTo(t, "/webhooks", body("payment_finished", "ps_held", "accepted", 5)); rec.Code != 200 {
		t.Fatalf("a held session's webhook while the checks are taken: status %d, want 200", rec.Code)
	}
	close(hold)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != 200 {
			t.Errorf("a checked webhook: status %d, want 200", c)
		}
	}

	f.api.mu.Lock()
	f.api.hold, f.api.err = nil, &payapi.Error{Code: payapi.CodeHTTPStatus, HTTPStatus: 502, Retryable: true, Endpoint: "session/status"}
	f.api.mu.Unlock()
	produced := f.prod.produced
	if rec := f.postTo(t, "/webhooks", body("payment_finished", "ps_unknown_d", "accepted", 5)); rec.Code != 503 {
		t.Fatalf("session/status failing: status %d, want 503", rec.Code)
	}
	if f.prod.produced != produced {
		t.Fatal("a webhook whose session was not confirmed was published")
	}
}

// TestSessionCheckTimesOut: a session/status call that does not answer
// within CheckTimeout ends the webhook with 503.
func TestSessionCheckTimesOut(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.CheckTimeout = 10 * time.Millisecond })
	f.api.hold = make(chan struct{}) // never answers
	if rec := f.postTo(t, "/webhooks", body("payment_finished", "ps_1", "accepted", 5)); rec.Code != 503 {
		t.Fatalf("status %d, want 503", rec.Code)
	}
	if f.prod.produced != 0 {
		t.Fatal("published without a confirmation")
	}
}

// TestReserializedRedeliveryPublishedOnce: the same event serialized anew
// is a redelivery (same event id): one update, the second answered as a
// duplicate (issue 38 item 4: on the code before, a second update with a
// second event id).
func TestReserializedRedeliveryPublishedOnce(t *testing.T) {
	f := newFixture(t, nil)
	first := body("payment_finished", "ps_1", "accepted", 5)
	again := []byte(strings.Replace(string(first), `{"type":"payment_finished","session":{`, `{ "session": {"note": "resent", `, 1))
	again = append(again[:len(again)-1], []byte(`, "type": "payment_finished"}`)...)
	for i, b := range [][]byte{first, again} {
		if rec := f.postTo(t, "/webhooks", b); rec.Code != 200 {
			t.Fatalf("delivery %d: status %d (%s)", i, rec.Code, b)
		}
	}
	if n := f.prod.topics()[updatesTopic]; n != 1 {
		t.Fatalf("%d updates published, want 1", n)
	}
	if n := counterValue(t, f.reg, "paysession_webhook_requests_total", map[string]string{"type": "payment_finished", "verdict": verdictDuplicate}); n != 1 {
		t.Fatalf("duplicate counted %v times, want 1", n)
	}
}
