package apicontract

import (
	"context"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/paysim"
	"github.com/paysession/paysession/internal/sensitive"
	"github.com/paysession/paysession/internal/signing"
)

var (
	keysOnce         sync.Once
	partner, service *rsa.PrivateKey
)

func keys(t *testing.T) (*rsa.PrivateKey, *rsa.PrivateKey) {
	keysOnce.Do(func() {
		var err error
		if partner, err = signing.GenerateKey(2048); err != nil {
			panic(err)
		}
		if service, err = signing.GenerateKey(2048); err != nil {
			panic(err)
		}
	})
	return partner, service
}

// hooks receives webhooks and verifies them through the client.
type hooks struct {
	verifier signing.Verifier
	mu       sync.Mutex
	got      []*payapi.Webhook
	bad      []error
}

func (h *hooks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	wh, err := payapi.VerifyWebhook(h.verifier, body, r.Header.Get("X-PARTNER-SIGN"))
	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil {
		h.bad = append(h.bad, err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	h.got = append(h.got, wh)
}

// env is one sandbox, one client and one webhook receiver.
type env struct {
	t      *testing.T
	sim    *paysim.Server
	client *payapi.Client
	hooks  *hooks
	ctx    context.Context
}

func newEnv(t *testing.T, version int, mutate func(*paysim.Project)) *env {
	t.Helper()
	pk, sk := keys(t)
	h := &hooks{verifier: signing.NewRSAVerifier(signing.PKCS1v15, &sk.PublicKey)}
	hookSrv := httptest.NewServer(h)
	t.Cleanup(hookSrv.Close)
	proj := paysim.DevProject("shop", &pk.PublicKey, hookSrv.URL)
	if mutate != nil {
		mutate(&proj)
	}
	sim, err := paysim.New(paysim.Config{Clock: paysim.NewFakeClock(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)),
		Projects: []paysim.Project{proj}, ServiceKey: sk, ProcessingDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	client, err := payapi.New(payapi.Config{BaseURL: sim.URL(), Version: version, Project: "shop",
		Signer: signing.NewRSASigner(pk, signing.PKCS1v15)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return &env{t: t, sim: sim, client: client, hooks: h, ctx: ctx}
}

// idle waits for the sandbox's processing and webhook deliveries.
func (e *env) idle() {
	e.t.Helper()
	if err := e.sim.WaitIdle(e.ctx); err != nil {
		e.t.Fatalf("wait idle: %v", err)
	}
	e.hooks.mu.Lock()
	defer e.hooks.mu.Unlock()
	if len(e.hooks.bad) > 0 {
		e.t.Fatalf("webhook rejected by the client: %v", e.hooks.bad)
	}
}

// advance moves sandbox time and waits for what became due.
func (e *env) advance(d time.Duration) {
	e.sim.Advance(d)
	e.idle()
}

// webhooks returns the received webhook types of a session, in order.
func (e *env) webhooks(sessionID string) ([]string, []*payapi.Webhook) {
	e.hooks.mu.Lock()
	defer e.hooks.mu.Unlock()
	var types []string
	var whs []*payapi.Webhook
	for _, w := range e.hooks.got {
		if w.Session.ID == sessionID {
			types = append(types, w.Type)
			whs = append(whs, w)
		}
	}
	return types, whs
}

func (e *env) lastWebhook(sessionID, typ string) *payapi.Webhook {
	e.t.Helper()
	_, whs := e.webhooks(sessionID)
	for i := len(whs) - 1; i >= 0; i-- {
		if whs[i].Type == typ {
			return whs[i]
		}
	}
	e.t.Fatalf("no %s webhook for %s", typ, sessionID)
	return nil
}

func (e *env) status(id string) *payapi.Session {
	e.t.Helper()
	s, err := e.client.Status(e.ctx, id)
	if err != nil {
		e.t.Fatalf("status: %v", err)
	}
	return s
}

// ok fails the test on a call error and returns the session.
func (e *env) ok(s *payapi.Session, err error) *payapi.Session {
	e.t.Helper()
	if err != nil {
		e.t.Fatalf("call failed: %v", err)
	}
	return s
}

// apiErr asserts err is a *payapi.Error with code (and field.rule when given).
func apiErr(t *testing.T, err error, code, fieldRule string) *payapi.Error {
	t.Helper()
	var pe *payapi.Error
	if !errors.As(err, &pe) {
		t.Fatalf("want *payapi.Error %s, got %v", code, err)
	}
	if pe.Code != code || (fieldRule != "" && pe.Field+"."+pe.Rule != fieldRule) {
		t.Fatalf("got code %q field %q rule %q (%s), want %s %s", pe.Code, pe.Field, pe.Rule, pe.Description, code, fieldRule)
	}
	return pe
}

func cardInst(number string) *payapi.Instrument {
	return payapi.CardInstrument(sensitive.PAN(number), "12", "29", sensitive.SecurityCode("123"))
}

func rub(v int64) *payapi.Amount { return &payapi.Amount{Value: v, Currency: "rub"} }

func payment(number string, v int64) payapi.InitPaymentRequest {
	return payapi.InitPaymentRequest{Instrument: cardInst(number), Amount: rub(v),
		Customer: &payapi.Customer{Reference: "cust-1", Contacts: []payapi.Contact{{Email: "a@example.com"}}},
		Metadata: json.RawMessage(`{"order":"o-1"}`)}
}

func payout(number string, v int64) payapi.InitPayoutRequest {
	return payapi.InitPayoutRequest{Instrument: cardInst(number), Amount: rub(v),
		Participants: &payapi.ParticipantDetails{Recipient: &payapi.Recipient{FirstName: "Ivan", LastName: "Petrov"}}}
}

// versions runs f for API v1 and v2.
func versions(t *testing.T, f func(t *testing.T, version int)) {
	for _, v := range []int{1, 2} {
		t.Run(map[int]string{1: "v1", 2: "v2"}[v], func(t *testing.T) { f(t, v) })
	}
}

func onlyOp(t *testing.T, s payapi.Session) payapi.Operation {
	t.Helper()
	ops := append(append([]payapi.Operation{}, s.Payments...), s.Payouts...)
	if len(ops) != 1 {
		t.Fatalf("session %s has %d operations", s.ID, len(ops))
	}
	return ops[0]
}

func equal[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func equalTypes(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("webhooks %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("webhooks %v, want %v", got, want)
		}
	}
}

func hashOf(pan string) string {
	h := sha256.Sum256([]byte(pan))
	return hex.EncodeToString(h[:])
}
