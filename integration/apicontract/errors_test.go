package apicontract

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/paysim"
	"github.com/paysession/paysession/internal/sensitive"
	"github.com/paysession/paysession/internal/signing"
)

// Errors table, code invalid_request: "description has the form <field
// path>.<rule>"; the client parses field and rule and marks it final.
func TestErrorInvalidRequest(t *testing.T) {
	versions(t, func(t *testing.T, v int) {
		e := newEnv(t, v, nil)
		payoutName := map[int]string{1: "payment_method", 2: "payout_details"}[v]
		cases := []struct {
			name string
			call func() error
			want string
		}{
			{"blank instrument", func() error {
				_, err := e.client.InitPayout(e.ctx, payapi.InitPayoutRequest{Amount: rub(1)})
				return err
			}, payoutName + ".blank"},
			{"uppercase currency", func() error {
				_, err := e.client.InitPayout(e.ctx, payapi.InitPayoutRequest{Instrument: cardInst(paysim.CardSuccess), Amount: &payapi.Amount{Value: 1, Currency: "RUB"}})
				return err
			}, "amount_details.currency.lowercase"},
			{"negative amount", func() error {
				_, err := e.client.InitPayment(e.ctx, payment(paysim.CardSuccess, -5))
				return err
			}, "amount_details.amount.positive"},
			{"postal code", func() error {
				p := payment(paysim.CardSuccess, 5)
				p.Participants = &payapi.ParticipantDetails{Sender: &payapi.Sender{PostalCode: "1234567"}}
				_, err := e.client.InitPayment(e.ctx, p)
				return err
			}, "participant_details.sender.postal_code.max_6_digits"},
			{"expiration month", func() error {
				p := payment(paysim.CardSuccess, 5)
				p.Instrument = payapi.CardInstrument(sensitive.PAN(paysim.CardSuccess), "13", "29", "123")
				_, err := e.client.InitPayment(e.ctx, p)
				return err
			}, "payment_details.card.bank_card.expiration_month.two_digits"},
			{"luhn", func() error {
				_, err := e.client.InitPayout(e.ctx, payout("4111111111111112", 5))
				return err
			}, payoutName + ".card.bank_card.number.luhn"},
			{"capture without hold", func() error {
				s, err := e.client.InitPayout(e.ctx, payout(paysim.CardSuccess, 5))
				if err != nil {
					return err
				}
				_, err = e.client.Capture(e.ctx, payapi.CaptureRequest{SessionID: s.ID})
				return err
			}, "session_id.invalid_state"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				pe := apiErr(t, tc.call(), "invalid_request", tc.want)
				if pe.Retryable || pe.HTTPStatus != 400 {
					t.Fatalf("retryable %v status %d", pe.Retryable, pe.HTTPStatus)
				}
			})
		}
	})
}

// Errors table, code repository_record_not_found: "a referenced record (the
// session) does not exist; description is a generic internal-error text".
func TestErrorRecordNotFound(t *testing.T) {
	versions(t, func(t *testing.T, v int) {
		e := newEnv(t, v, nil)
		for name, call := range map[string]func() error{
			"status":  func() error { _, err := e.client.Status(e.ctx, "ps_999999"); return err },
			"confirm": func() error { _, err := e.client.Confirm(e.ctx, "ps_999999"); return err },
			"refund": func() error {
				_, err := e.client.Refund(e.ctx, payapi.RefundRequest{SessionID: "ps_999999"})
				return err
			},
		} {
			pe := apiErr(t, call(), "repository_record_not_found", "")
			if pe.Description != "internal error" || pe.Retryable {
				t.Fatalf("%s: %+v", name, pe)
			}
		}
	})
}

// Idempotency rule 2 "requests with the same key are not executed twice":
// the repeat returns the original session and the ledger has one entry.
func TestIdempotencySameRequestTwice(t *testing.T) {
	e := newEnv(t, 1, nil)
	key := payapi.WithIdempotencyKey("order-42-payout")
	a := e.ok(e.client.InitPayout(e.ctx, payout(paysim.CardSuccess, 5000), key))
	e.idle()
	b := e.ok(e.client.InitPayout(e.ctx, payout(paysim.CardSuccess, 5000), key))
	e.idle()
	equal(t, "same session", b.ID, a.ID)
	equal(t, "ledger entries", len(e.sim.Ledger("")), 1)
	types, _ := e.webhooks(a.ID)
	equalTypes(t, types, "payment_finished")
}

// Errors table, idempotency_key_params_mismatch: "the key was already used
// for another session" (other parameters).
func TestErrorIdempotencyMismatch(t *testing.T) {
	e := newEnv(t, 2, nil)
	key := payapi.WithIdempotencyKey("order-43-payout")
	e.ok(e.client.InitPayout(e.ctx, payout(paysim.CardSuccess, 5000), key))
	_, err := e.client.InitPayout(e.ctx, payout(paysim.CardSuccess, 6000), key)
	if pe := apiErr(t, err, "idempotency_key_params_mismatch", ""); pe.Retryable {
		t.Fatal("mismatch must be final")
	}
}

// Errors table, idempotency_key_already_exists: "an earlier request with
// the same key is still in progress" (latency knob keeps it executing).
func TestErrorIdempotencyInProgress(t *testing.T) {
	e := newEnv(t, 1, nil)
	if err := e.sim.SetFaults(paysim.Faults{Latency: 400 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	key := payapi.WithIdempotencyKey("order-44-payout")
	var wg sync.WaitGroup
	wg.Add(1)
	var first error
	go func() {
		defer wg.Done()
		_, first = e.client.InitPayout(e.ctx, payout(paysim.CardSuccess, 5000), key)
	}()
	waitExecuting(t, e.sim)
	// A client without retries, so the in-progress answer reaches the test.
	pk, _ := keys(t)
	c, err := payapi.New(payapi.Config{BaseURL: e.sim.URL(), Project: "shop", Signer: signing.NewRSASigner(pk, signing.PKCS1v15)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.InitPayout(e.ctx, payout(paysim.CardSuccess, 5000), key)
	if pe := apiErr(t, err, "idempotency_key_already_exists", ""); !pe.Retryable {
		t.Fatal("already_exists must be retryable")
	}
	wg.Wait()
	if first != nil {
		t.Fatal(first)
	}
}

// waitExecuting waits until the sandbox has a call in flight.
func waitExecuting(t *testing.T, sim *paysim.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if _, peak := sim.Executions(""); peak > 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no call started")
}

// Errors table, idempotency_key_not_supported: read-only methods take no key.
func TestErrorIdempotencyNotSupported(t *testing.T) {
	e := newEnv(t, 1, nil)
	key := payapi.WithIdempotencyKey("status-key")
	s := e.ok(e.client.InitPayout(e.ctx, payout(paysim.CardSuccess, 5)))
	calls := map[string]func() error{
		"session/status": func() error { _, err := e.client.Status(e.ctx, s.ID, key); return err },
		"fps/banks":      func() error { _, err := e.client.FPSBanks(e.ctx, key); return err },
		"wallet/balance": func() error { _, err := e.client.WalletBalance(e.ctx, time.Now(), key); return err },
		"token/info": func() error {
			_, err := e.client.TokenInfo(e.ctx, payapi.TokenInfoRequest{Type: "recurrent_token", RecurrentToken: []byte(`{"token":"x"}`)}, key)
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			if pe := apiErr(t, call(), "idempotency_key_not_supported", ""); pe.Retryable {
				t.Fatal("not_supported must be final")
			}
		})
	}
}

// Idempotency rule 1 "the key lifetime is 24 hours": after it the same key
// executes anew.
func TestIdempotencyKeyExpires(t *testing.T) {
	e := newEnv(t, 1, nil)
	key := payapi.WithIdempotencyKey("order-45-payout")
	a := e.ok(e.client.InitPayout(e.ctx, payout(paysim.CardSuccess, 5000), key))
	e.advance(24 * time.Hour)
	b := e.ok(e.client.InitPayout(e.ctx, payout(paysim.CardSuccess, 5000), key))
	e.idle()
	if a.ID == b.ID || len(e.sim.Ledger("")) != 2 {
		t.Fatalf("sessions %s %s, ledger %d", a.ID, b.ID, len(e.sim.Ledger("")))
	}
}

// Authentication rule 3: a request signed with another key is rejected.
func TestErrorBadSignature(t *testing.T) {
	e := newEnv(t, 1, nil)
	_, other := keys(t)
	c, err := payapi.New(payapi.Config{BaseURL: e.sim.URL(), Project: "shop", Signer: signing.NewRSASigner(other, signing.PKCS1v15)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Status(e.ctx, "ps_1")
	var pe *payapi.Error
	if !errors.As(err, &pe) || pe.HTTPStatus != 401 || pe.Code != "unauthorized" || pe.Retryable {
		t.Fatalf("got %+v", err)
	}
}

// Common rules: "sender first_name, last_name and ipv4 are mandatory for
// payments made without the service's widget" (projects of such countries).
func TestSenderParametersRule(t *testing.T) {
	e := newEnv(t, 1, func(p *paysim.Project) { p.RequireSender = true })
	_, err := e.client.InitPayment(e.ctx, payment(paysim.CardSuccess, 100))
	apiErr(t, err, "invalid_request", "participant_details.blank")
	p := payment(paysim.CardSuccess, 100)
	p.Participants = &payapi.ParticipantDetails{Sender: &payapi.Sender{FirstName: "Ivan", LastName: "Petrov"}}
	_, err = e.client.InitPayment(e.ctx, p)
	apiErr(t, err, "invalid_request", "participant_details.sender.ipv4.blank")
	p.Participants.Sender.IPv4 = "203.0.113.7"
	e.ok(e.client.InitPayment(e.ctx, p))
}
