package webhook

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/sensitive"
)

// Sandbox test cards (CONTRACTS.md).
const (
	cardOK      = "4111111111111111"
	cardDecline = "4000000000000002"
	card3DS     = "4000000000003220"
	cardHold    = "5555555555554444"
)

// confirmAbove is the dev project's threshold for payouts waiting for
// session/confirm.
const confirmAbove = 1_000_000

func card(pan string) *payapi.Instrument {
	return payapi.CardInstrument(sensitive.PAN(pan), "12", "29", sensitive.SecurityCode("123"))
}

var sender = &payapi.ParticipantDetails{Sender: &payapi.Sender{FirstName: "Ivan", LastName: "Petrov", IPv4: "10.0.0.1"}}

func (g *rig) payout(t *testing.T, pan string, amount int64) *payapi.Session {
	t.Helper()
	s, err := g.api.InitPayout(context.Background(), payapi.InitPayoutRequest{Instrument: card(pan),
		Amount: &payapi.Amount{Value: amount, Currency: "rub"}, Customer: &payapi.Customer{Reference: "c1"}})
	if err != nil {
		t.Fatalf("init payout: %v", err)
	}
	return s
}

func (g *rig) payment(t *testing.T, pan string, amount int64) *payapi.Session {
	t.Helper()
	s, err := g.api.InitPayment(context.Background(), payapi.InitPaymentRequest{Instrument: card(pan),
		Amount: &payapi.Amount{Value: amount, Currency: "rub"}, Participants: sender, Customer: &payapi.Customer{Reference: "c2"},
		PaymentOptions: &payapi.PaymentOptions{ReturnURL: "https://shop.example/return"}})
	if err != nil {
		t.Fatalf("init payment: %v", err)
	}
	return s
}

func (g *rig) chargeback(t *testing.T, sessionID string) {
	t.Helper()
	resp, err := http.Post(g.sim.URL()+"/admin/chargeback", "application/json",
		bytes.NewReader([]byte(`{"session_id":"`+sessionID+`"}`)))
	if err != nil {
		t.Fatalf("chargeback: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("chargeback: HTTP %d", resp.StatusCode)
	}
}

// must fails t when an API call failed: must(t)(g.api.Confirm(ctx, id)).
func must(t *testing.T) func(*payapi.Session, error) {
	return func(_ *payapi.Session, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}
