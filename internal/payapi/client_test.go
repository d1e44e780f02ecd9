package payapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/paysession/paysession/internal/signing"
)

func TestConfigValidate(t *testing.T) {
	signer := signing.NewRSASigner(key(t), signing.PKCS1v15)
	ok := Config{BaseURL: "http://127.0.0.1:8080", Project: "p", Signer: signer}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	bad := Config{BaseURL: "127.0.0.1:8080", Version: 3, MaxResponseBytes: -1}
	err := bad.Validate()
	for _, field := range []string{"BaseURL", "Version", "Project", "Signer", "MaxResponseBytes"} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("error %v does not name %s", err, field)
		}
	}
	if _, err := New(Config{BaseURL: "http://h/api/v1", Project: "p", Signer: signer}); err == nil {
		t.Error("BaseURL with /api/v1 accepted")
	}
	c, err := New(ok)
	if err != nil {
		t.Fatal(err)
	}
	if c.Version() != 1 || c.maxBody != DefaultMaxResponseBytes || c.http == nil {
		t.Errorf("defaults not applied: version %d max %d", c.Version(), c.maxBody)
	}
}

func TestOptionalHeaders(t *testing.T) {
	fake := newFakeService(t, jsonResponse(200, `{"status":"ok","session":{"id":"ps_1"}}`))
	c := newTestClient(t, fake.srv.URL+"/", 2, func(cfg *Config) { cfg.Submerchant = "sub-7" })
	if _, err := c.Status(context.Background(), "ps_1"); err != nil {
		t.Fatal(err)
	}
	req := fake.last(t)
	if req.Path != "/api/v2/session/status" {
		t.Errorf("path %s (trailing slash of BaseURL must not double)", req.Path)
	}
	if got := req.Header.Get(HeaderSubmerchant); got != "sub-7" {
		t.Errorf("%s = %q", HeaderSubmerchant, got)
	}
	if _, ok := req.Header[http.CanonicalHeaderKey(HeaderIdempotency)]; ok {
		t.Errorf("idempotency header sent without WithIdempotencyKey")
	}
}

// TestConnectionReuse: sequential calls share one TCP connection.
func TestConnectionReuse(t *testing.T) {
	var mu sync.Mutex
	remotes := map[string]bool{}
	fake := newFakeService(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		remotes[r.RemoteAddr] = true
		mu.Unlock()
		jsonResponse(200, `{"status":"error","error":{"code":"invalid_request","description":"x.y"}}`)(w, r)
	})
	c := newTestClient(t, fake.srv.URL, 1)
	for range 10 {
		_, _ = c.Confirm(context.Background(), "ps_1")
	}
	if len(remotes) != 1 {
		t.Errorf("10 calls used %d connections, want 1", len(remotes))
	}
}

// TestNoSecretsInLogsOrErrors sends card data through failing and succeeding
// calls with a debug logger and checks that neither the log nor any error
// text nor the %v/%+v/%#v forms of the request carry the number or the code.
func TestNoSecretsInLogsOrErrors(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	responses := []string{
		`{"status":"error","error":{"code":"invalid_request","description":"payment_details.card.bank_card.number 4111111111111111 luhn"}}`,
		`{"status":"error","error":{"code":"4111111111111111","description":"x"}}`,
		`{"status":"ok","session":{"id":"ps_1","created_at":"4111111111111111"}}`,
		`{"status":"4111111111111111"}`,
		`{"status":"ok","session":{"id":"ps_1"}}`,
	}
	var errs []string
	for _, body := range responses {
		fake := newFakeService(t, jsonResponse(400, body))
		c := newTestClient(t, fake.srv.URL, 1, withLogger(logger))
		req := InitPaymentRequest{Instrument: CardInstrument(testPAN, "12", "29", "987"), Amount: testAmount}
		_, err := c.InitPayment(context.Background(), req, WithIdempotencyKey("key-leak"))
		if err != nil {
			var e *Error
			errors.As(err, &e)
			errs = append(errs, err.Error(), fmt.Sprintf("%v %+v", err, e), e.Description, e.Code)
		}
		sent := fake.last(t).Body
		if !bytes.Contains(sent, []byte(testPAN.Reveal())) || !bytes.Contains(sent, []byte(`"987"`)) {
			t.Fatalf("the wire must carry the full card data")
		}
		errs = append(errs, fmt.Sprintf("%v %+v %#v", req, req.Instrument.Card.BankCard, *req.Instrument.Card.BankCard))
	}
	if logs.Len() == 0 {
		t.Fatal("no debug log lines")
	}
	// Log durations are numbers, so the code is looked for as a JSON string
	// there. %v prints a struct's pointer fields as addresses, which can
	// hold the digits 987 by chance: they are not the code, so they go.
	texts := pointerAddress.ReplaceAllString(strings.Join(errs, "\n"), "0x…")
	leaks := map[string]string{"4111111111111111": logs.String() + texts,
		"987": texts, `"987"`: logs.String()}
	for secret, text := range leaks {
		if strings.Contains(text, secret) {
			t.Errorf("%q leaked:\n%s", secret, text)
		}
	}
}

// pointerAddress matches a pointer as %v prints it.
var pointerAddress = regexp.MustCompile(`0x[0-9a-f]+`)

// TestConcurrentCalls runs many calls at once through one client.
func TestConcurrentCalls(t *testing.T) {
	fake := newFakeService(t, func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			SessionID string `json:"session_id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&in)
		jsonResponse(200, `{"status":"ok","session":{"id":"`+in.SessionID+`"}}`)(w, r)
	})
	c := newTestClient(t, fake.srv.URL, 2)
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := range 50 {
		wg.Go(func() {
			id := fmt.Sprintf("ps_%d", i)
			s, err := c.Status(context.Background(), id, WithIdempotencyKey("key-"+id))
			if err == nil && s.ID != id {
				err = fmt.Errorf("got %s for %s", s.ID, id)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
