package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/signing"
)

// named returns st naming project p ("" leaves it unnamed).
func named(st *codec.SessionState, p string) *codec.SessionState {
	if p != "" {
		st.Project = &p
	}
	return st
}

// TestPendingSetKeepsTheProject: a session lives in one project, but the
// newest state of it may not name it (the session writer writes states as
// they come); the project read in any state of the session stays.
func TestPendingSetKeepsTheProject(t *testing.T) {
	at := func(sec int, p string) *codec.SessionState {
		upd := t0.Add(time.Duration(sec) * time.Second)
		return named(stateOf(session("ps_1", "in_progress", "", upd, "payout", 10), upd), p)
	}
	tests := []struct {
		name   string
		states []*codec.SessionState
		want   string // "" means none: the default project
	}{
		{"never named", []*codec.SessionState{at(0, ""), at(1, "")}, ""},
		{"named, then a newer state without it", []*codec.SessionState{at(0, "shop-2"), at(1, "")}, "shop-2"},
		{"unnamed, then an older state naming it", []*codec.SessionState{at(1, ""), at(0, "shop-2")}, "shop-2"},
		{"a newer state naming another project wins", []*codec.SessionState{at(0, "shop-2"), at(1, "shop-3")}, "shop-3"},
		{"an older state naming another project does not", []*codec.SessionState{at(1, "shop-2"), at(0, "shop-3")}, "shop-2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPendingSet(ConfirmPolicy{Deadline: 240 * time.Minute, WarnBefore: 30 * time.Minute}, time.Minute, 0)
			for _, st := range tc.states {
				p.apply(st, 0, t0)
			}
			tasks := p.due(t0.Add(time.Hour), 10)
			if len(tasks) != 1 {
				t.Fatalf("%d tasks due", len(tasks))
			}
			got := ""
			if tasks[0].project != nil {
				got = *tasks[0].project
			}
			if got != tc.want {
				t.Fatalf("task project %q, want %q", got, tc.want)
			}
		})
	}
}

// projectService is a Payment Session Service where each session lives in
// one project: session/status and session/confirm find it only under that
// project (X-PARTNER-PROJECT), as the real service does.
type projectService struct {
	mu       sync.Mutex
	owner    map[string]string // session id → project
	waiting  map[string]bool   // still waits for session/confirm
	requests []string          // "endpoint session project"
}

func (s *projectService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		SessionID string `json:"session_id"`
	}
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &req)
	project := r.Header.Get(payapi.HeaderProject)
	endpoint := r.URL.Path[strings.Index(r.URL.Path, "/session/")+1:]
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, endpoint+" "+req.SessionID+" "+project)
	if s.owner[req.SessionID] != project {
		_, _ = io.WriteString(w, `{"status":"error","error":{"code":"repository_record_not_found","description":"session"}}`)
		return
	}
	if endpoint == "session/confirm" {
		s.waiting[req.SessionID] = false
	}
	status, next, op, upd := "accepted", "", "succeeded", "10:00:05"
	if s.waiting[req.SessionID] {
		status, next, op, upd = "in_progress", "confirm", "pending", "10:00:01"
	}
	fmt.Fprintf(w, `{"status":"ok","session":{"id":%q,"status":%q,"next_action":%q,"created_at":"2026-11-23T10:00:00.000000Z",`+
		`"updated_at":"2026-11-23T%s.000000Z","payments":[{"id":"op_%s","status":%q,"amount_details":{"amount":100,"currency":"rub"}}]}}`,
		req.SessionID, status, next, upd, req.SessionID, op)
}

func (s *projectService) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// TestReconcilerCallsUnderTheSessionsProject: the reconciler reads a
// session's project from its states, keeps it when the newest state does
// not name it, and sends session/status and the automatic session/confirm
// under it; the states it proposes name it. A session no state names a
// project of goes under the default project.
func TestReconcilerCallsUnderTheSessionsProject(t *testing.T) {
	svc := &projectService{owner: map[string]string{"ps_b": "shop-2", "ps_a": "main"},
		waiting: map[string]bool{"ps_b": true, "ps_a": true}}
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	k, err := signing.GenerateKey(2048)
	if err != nil {
		t.Fatal(err)
	}
	signer := signing.NewRSASigner(k, signing.PKCS1v15)
	api, err := payapi.New(payapi.Config{BaseURL: srv.URL, Project: "main", Signer: signer,
		Projects: []payapi.Project{{ID: "shop-2", Signer: signer}}})
	if err != nil {
		t.Fatal(err)
	}
	policy := ConfirmPolicy{Mode: ConfirmAuto, AutoKinds: []codec.OperationKind{"payout"}, AutoMaxAmount: 5000}
	g := newRigWith(t, policy, func(c *Config) { c.API = api })

	// ps_b: the pipeline's answer of the init names the project; the next
	// state (as a webhook at the base path would give) does not.
	created := session("ps_b", "in_progress", "", t0, "payout", 100)
	waits := session("ps_b", "in_progress", "confirm", t0.Add(time.Second), "payout", 100)
	g.seedState(t, named(stateOf(created, t0), "shop-2"))
	g.seedState(t, stateOf(waits, t0))
	g.seedState(t, stateOf(session("ps_a", "in_progress", "confirm", t0.Add(time.Second), "payout", 100), t0))

	waitFor(t, "both sessions confirmed and settled", func() bool {
		return g.rec.OpenSessions() == 0 && len(g.published(t)) >= 5
	})
	want := map[string]bool{
		"session/status ps_b shop-2": true, "session/confirm ps_b shop-2": true,
		"session/status ps_a main": true, "session/confirm ps_a main": true,
	}
	got := map[string]bool{}
	for _, r := range svc.seen() {
		if !want[r] {
			t.Errorf("request %q: a session went out under another project than its own", r)
		}
		got[r] = true
	}
	for r := range want {
		if !got[r] {
			t.Errorf("no request %q", r)
		}
	}
	for _, r := range g.published(t) {
		var st codec.SessionState
		if err := json.Unmarshal(r.Value, &st); err != nil {
			t.Fatal(err)
		}
		byReconciler := st.Source == codec.SourcePoll || st.IdempotencyKey != nil
		if st.Session.ID == "ps_b" && byReconciler && (st.Project == nil || *st.Project != "shop-2") {
			t.Errorf("reconciler's %s state of ps_b names project %v, want shop-2", st.Source, st.Project)
		}
		if st.Session.ID == "ps_a" && st.Project != nil {
			t.Errorf("state of a default-project session names project %q", *st.Project)
		}
	}
}

// seedState writes st to the sessions topic.
func (g *rig) seedState(t *testing.T, st *codec.SessionState) {
	t.Helper()
	v, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.prod.ProduceSync(context.Background(), &kgo.Record{Key: []byte(st.Session.ID), Value: v}).FirstErr(); err != nil {
		t.Fatal(err)
	}
}
