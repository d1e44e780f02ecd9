package reconcile

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// payoutService is a fake Payment Session Service over HTTP (v1 names),
// called through the real payapi client so the test sees the idempotency
// key on the wire. It holds one session whose payouts wait for
// session/confirm one after another, as the sandbox's do when a second
// payout is started once the first finished. Keys behave as the spec says:
// a repeated key gets the stored answer of its first request and executes
// nothing.
type payoutService struct {
	mu      sync.Mutex
	id      string
	amounts []int64 // the payouts, started one after another
	started int     // payouts started so far
	done    int     // payouts confirmed (executed, not replayed)
	updated time.Time
	// staleAnswers makes every session/confirm return the session as it
	// was before the first change, executing nothing: what a replay of an
	// earlier request's answer looks like.
	staleAnswers bool
	first        []byte
	answers      map[string][]byte
	calls        []serviceCall
}

// serviceCall is one request the service received.
type serviceCall struct {
	method  string // status or confirm
	key     string // X-PARTNER-IDEMPOTENCY-KEY
	waiting bool   // the session waited for confirmation when the call arrived
}

func newPayoutService(t *testing.T, id string, amounts ...int64) (*payoutService, *payapi.Client) {
	t.Helper()
	svc := &payoutService{id: id, amounts: amounts, started: 1, updated: t0, answers: map[string][]byte{}}
	svc.first = svc.render(false)
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	api, err := payapi.New(payapi.Config{BaseURL: srv.URL, Project: "p", Signer: noSigner{}})
	if err != nil {
		t.Fatal(err)
	}
	return svc, api
}

type noSigner struct{}

func (noSigner) Sign([]byte) (string, error) { return "c2lnbmVk", nil }

func (svc *payoutService) waiting() bool { return svc.done < svc.started }

// render writes the session: payouts before done succeeded, the one
// after them pending while it waits for confirmation. An answer to
// session/confirm shows what the spec says: "session in_progress",
// the operation still pending, nothing waited for.
func (svc *payoutService) render(answer bool) []byte {
	ts := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }
	type amount struct {
		Amount   int64  `json:"amount"`
		Currency string `json:"currency"`
	}
	type op struct {
		ID            string `json:"id"`
		Status        string `json:"status"`
		CreatedAt     string `json:"created_at"`
		AmountDetails amount `json:"amount_details"`
	}
	sess := struct {
		ID         string `json:"id"`
		Status     string `json:"status"`
		NextAction string `json:"next_action,omitempty"`
		CreatedAt  string `json:"created_at"`
		UpdatedAt  string `json:"updated_at"`
		Payments   []op   `json:"payments"`
	}{ID: svc.id, Status: "in_progress", CreatedAt: ts(t0), UpdatedAt: ts(svc.updated)}
	for i := range svc.started {
		o := op{ID: "po_" + string(rune('1'+i)), Status: "succeeded", CreatedAt: ts(t0), AmountDetails: amount{svc.amounts[i], "rub"}}
		if i >= svc.done {
			o.Status = "pending"
		}
		sess.Payments = append(sess.Payments, o)
	}
	switch {
	case answer:
	case svc.waiting():
		sess.NextAction = "confirm"
	default:
		sess.Status = "accepted"
	}
	b, _ := json.Marshal(map[string]any{"status": "ok", "session": sess})
	return b
}

func (svc *payoutService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	svc.mu.Lock()
	defer svc.mu.Unlock()
	key := r.Header.Get("X-PARTNER-IDEMPOTENCY-KEY")
	c := serviceCall{key: key, waiting: svc.waiting()}
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/api/v1/session/status":
		c.method = "status"
		svc.calls = append(svc.calls, c)
		_, _ = w.Write(svc.render(false))
		return
	case "/api/v1/session/confirm":
		c.method = "confirm"
		svc.calls = append(svc.calls, c)
	default:
		http.NotFound(w, r)
		return
	}
	if b, ok := svc.answers[key]; ok && key != "" {
		_, _ = w.Write(b) // the key's first answer; nothing executed
		return
	}
	var answer []byte
	switch {
	case svc.staleAnswers:
		answer = svc.first
	case !svc.waiting():
		w.WriteHeader(http.StatusBadRequest)
		answer = []byte(`{"status":"error","error":{"code":"invalid_request","description":"session_id.invalid_state"}}`)
	default:
		// The answer; then the service completes the payout and the next
		// one of the session, if any, waits for confirmation.
		svc.updated = svc.updated.Add(time.Second)
		answer = svc.render(true)
		svc.done++
		if svc.started < len(svc.amounts) {
			svc.started++
		}
		svc.updated = svc.updated.Add(time.Second)
	}
	svc.answers[key] = answer
	_, _ = w.Write(answer)
}

func (svc *payoutService) log() (calls []serviceCall, done int) {
	svc.mu.Lock()
	defer svc.mu.Unlock()
	return slices.Clone(svc.calls), svc.done
}

// newServiceRig runs a reconciler against a fake service through api.
func newServiceRig(t *testing.T, api *payapi.Client, policy ConfirmPolicy) *rig {
	t.Helper()
	return newRigWith(t, policy, func(c *Config) {
		c.API = api
		c.Registerer = prometheus.NewRegistry()
	})
}

var autoPayouts = ConfirmPolicy{Mode: ConfirmAuto, AutoKinds: []codec.OperationKind{codec.OperationPayout}, AutoMaxAmount: 5000}

// TestAutoConfirmEachOperationOnce: two payouts of one session wait for
// confirmation one after the other. Each is confirmed once, under its own
// key, and only after a session/status showed it waiting; the metric
// counts two confirmations.
func TestAutoConfirmEachOperationOnce(t *testing.T) {
	svc, api := newPayoutService(t, "ps_multi", 1000, 2000)
	g := newServiceRig(t, api, autoPayouts)
	s, err := api.Status(t.Context(), "ps_multi")
	if err != nil {
		t.Fatal(err)
	}
	g.seed(t, s) // the pipeline's record: the first payout waits for confirmation
	waitFor(t, "both payouts confirmed", func() bool {
		g.clock.Advance(time.Minute) // the quiet time passes: the next payout is polled
		_, done := svc.log()
		return done == 2
	})
	waitFor(t, "the session settled", func() bool {
		g.clock.Advance(time.Minute)
		return g.rec.OpenSessions() == 0
	})
	calls, _ := svc.log()
	var keys []string
	for i, c := range calls {
		if c.method != "confirm" {
			continue
		}
		keys = append(keys, c.key)
		if i == 0 || calls[i-1].method != "status" || !calls[i-1].waiting {
			t.Errorf("confirm %d (call %d) not right after a status showing the payout waiting: %+v", len(keys), i, calls)
		}
		if err := payapi.ValidIdempotencyKey(c.key); err != nil {
			t.Errorf("key %q: %v", c.key, err)
		}
	}
	if len(keys) != 2 || keys[0] == keys[1] {
		t.Fatalf("confirm keys %q, want two distinct keys", keys)
	}
	if got := testutil.ToFloat64(g.rec.metrics.confirms.WithLabelValues("confirmed")); got != 2 {
		t.Fatalf("confirmed metric %v, want 2", got)
	}
	var published []string
	for _, r := range g.published(t) {
		var st codec.SessionState
		if err := json.Unmarshal(r.Value, &st); err != nil {
			t.Fatal(err)
		}
		if st.IdempotencyKey != nil {
			published = append(published, *st.IdempotencyKey)
		}
	}
	if !slices.Equal(published, keys) {
		t.Fatalf("answers published under keys %q, want %q", published, keys)
	}
}

// TestAutoConfirmCountsWhatTheServiceDid: the service answers every
// confirm with an old state of the session and executes nothing. The
// metric counts a replay, never a confirmation, and the same key is not
// sent again.
func TestAutoConfirmCountsWhatTheServiceDid(t *testing.T) {
	svc, api := newPayoutService(t, "ps_replay", 1000)
	svc.staleAnswers = true
	svc.updated = t0.Add(time.Minute) // the waiting state is newer than the answer
	g := newServiceRig(t, api, autoPayouts)
	s, err := api.Status(t.Context(), "ps_replay")
	if err != nil {
		t.Fatal(err)
	}
	g.seed(t, s)
	replayed := g.rec.metrics.confirms.WithLabelValues("replayed")
	waitFor(t, "the replay counted", func() bool { return testutil.ToFloat64(replayed) == 1 })
	statuses := func() (n int) {
		calls, _ := svc.log()
		for _, c := range calls {
			if c.method == "status" {
				n++
			}
		}
		return n
	}
	before := statuses()
	waitFor(t, "three more polls", func() bool { // hours of quiet time: polls, never the same confirm again
		g.clock.Advance(10 * time.Minute)
		return statuses() >= before+3
	})
	if got := testutil.ToFloat64(g.rec.metrics.confirms.WithLabelValues("confirmed")); got != 0 {
		t.Fatalf("confirmed metric %v for an answer that confirmed nothing", got)
	}
	calls, _ := svc.log()
	n := 0
	for _, c := range calls {
		if c.method == "confirm" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d confirms sent, want 1 (the answered key is not sent again)", n)
	}
}

func TestConfirmOutcome(t *testing.T) {
	at := func(d time.Duration) *time.Time { v := t0.Add(d); return &v }
	confirm := "confirm"
	waiting := codec.Session{Status: "in_progress", NextAction: &confirm, UpdatedAt: at(time.Minute),
		Operations: []codec.Operation{{ID: "po_1", Status: "succeeded"}, {ID: "po_2", Status: "pending"}}}
	targets := confirmTargets(&waiting)
	answer := func(s codec.Session) *codec.SessionState { return &codec.SessionState{Session: s} }
	tests := []struct {
		name   string
		answer *codec.SessionState
		err    error
		want   string
	}{
		{"confirmed", answer(codec.Session{Status: "in_progress", UpdatedAt: at(2 * time.Minute),
			Operations: []codec.Operation{{ID: "po_1", Status: "succeeded"}, {ID: "po_2", Status: "pending"}}}), nil, confirmConfirmed},
		{"same updated_at, no longer waiting", answer(codec.Session{Status: "in_progress", UpdatedAt: at(time.Minute)}), nil, confirmConfirmed},
		{"an older answer: replay of the first payout's confirm", answer(codec.Session{Status: "in_progress", UpdatedAt: at(0),
			Operations: []codec.Operation{{ID: "po_1", Status: "pending"}}}), nil, confirmReplayed},
		{"still waiting for the same payout", answer(waiting), nil, confirmReplayed},
		{"ok without a session", nil, nil, confirmAccepted},
		{"nothing waits any more", nil, &payapi.Error{Code: payapi.CodeInvalidRequest}, confirmRejected},
		{"key used for another session", nil, &payapi.Error{Code: payapi.CodeIdempotencyParamsMismatch}, confirmRejected},
		{"no answer", nil, &payapi.Error{Code: payapi.CodeTimeout, Retryable: true, Sent: true}, confirmError},
		{"not an API error", nil, errors.New("boom"), confirmError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := confirmOutcome(&waiting, targets, tc.answer, tc.err); got != tc.want {
				t.Fatalf("outcome %s, want %s", got, tc.want)
			}
		})
	}
}

func TestConfirmKey(t *testing.T) {
	long := string(make([]byte, 200))
	tests := []struct {
		name   string
		a, b   []string // operation ids
		idA    string
		idB    string
		differ bool
	}{
		{"same operation, same key", []string{"po_1"}, []string{"po_1"}, "ps_1", "ps_1", false},
		{"second operation of the session", []string{"po_1"}, []string{"po_2"}, "ps_1", "ps_1", true},
		{"same operation id in another session", []string{"po_1"}, []string{"po_1"}, "ps_1", "ps_2", true},
		{"ids are not concatenated", []string{"po_1", "2"}, []string{"po_12"}, "ps_1", "ps_1", true},
		{"long ids", []string{long}, []string{long + "x"}, long, long, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := confirmKey(tc.idA, tc.a), confirmKey(tc.idB, tc.b)
			if (a != b) != tc.differ {
				t.Fatalf("keys %q and %q: differ=%v, want %v", a, b, a != b, tc.differ)
			}
			for _, k := range []string{a, b} {
				if err := payapi.ValidIdempotencyKey(k); err != nil {
					t.Fatalf("key %q: %v", k, err)
				}
			}
		})
	}
}

// TestAutoConfirmReadsAFreshStateFirst: the sessions topic holds an old
// "waiting for confirm" state (a replayed webhook, another replica's late
// record) of a session the service already confirmed. The reconciler asks
// session/status and sends no confirm.
func TestAutoConfirmReadsAFreshStateFirst(t *testing.T) {
	g := newRig(t, autoPayouts)
	confirmed := session("ps_done", "in_progress", "", t0.Add(time.Minute), "payout", 1000)
	g.api.set(confirmed)
	g.seed(t, session("ps_done", "in_progress", "confirm", t0, "payout", 1000))
	waitFor(t, "a newer state published", func() bool { return len(g.published(t)) == 2 })
	if statuses, confirms := g.api.counts("ps_done"); statuses != 1 || confirms != 0 {
		t.Fatalf("%d status calls and %d confirms, want 1 and 0", statuses, confirms)
	}
	var st codec.SessionState
	if err := json.Unmarshal(g.published(t)[1].Value, &st); err != nil || st.Source != codec.SourcePoll || st.Session.NextAction != nil {
		t.Fatalf("published %+v (%v), want the polled state", st, err)
	}
}
