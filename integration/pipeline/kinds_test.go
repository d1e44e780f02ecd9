package pipeline_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/sensitive"
)

// Sandbox test cards (CONTRACTS.md).
const (
	cardSuccess = "4111111111111111"
	cardHold    = "5555555555554444"
	cardConfirm = "4000000000000259"
)

func cardJSON(number string) string {
	return fmt.Sprintf(`{"type":"card","card":{"type":"bank_card","bank_card":{"number":%q,"expiration_month":"12","expiration_year":"29","security_code":"123"}}}`, number)
}

const customerJSON = `{"reference":"cust-1"}`
const senderJSON = `{"sender":{"first_name":"Ann","last_name":"Lee","ipv4":"10.0.0.1"}}`

func initPaymentJSON(card string, amount int) string {
	return fmt.Sprintf(`{"instrument":%s,"amount":%d,"currency":"rub","customer":%s,"participants":%s}`,
		cardJSON(card), amount, customerJSON, senderJSON)
}

// setup runs a precondition call directly against the sandbox.
func (e *env) initPayment(t *testing.T, card string) *payapi.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := e.api.InitPayment(ctx, payapi.InitPaymentRequest{
		Instrument:   payapi.CardInstrument(sensitive.PAN(card), "12", "29", sensitive.SecurityCode("123")),
		Amount:       &payapi.Amount{Value: 10000, Currency: "rub"},
		Customer:     &payapi.Customer{Reference: "cust-1"},
		Participants: &payapi.ParticipantDetails{Sender: &payapi.Sender{FirstName: "Ann", LastName: "Lee", IPv4: "10.0.0.1"}},
	}, payapi.WithIdempotencyKey(key("setup")))
	if err != nil {
		t.Fatalf("setup init payment: %v", err)
	}
	if err := e.sim.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

func (e *env) createSession(t *testing.T) *payapi.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := e.api.CreateSession(ctx, payapi.CreateSessionRequest{}, payapi.WithIdempotencyKey(key("setup")))
	if err != nil {
		t.Fatalf("setup create session: %v", err)
	}
	return s
}

// TestCommandKinds sends one command of each kind through Kafka and reads
// its result and session state back with read_committed.
func TestCommandKinds(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.start(t, nil)
	ruAccount := `{"type":"bank_account","bank_account":{"system_type":"ru","ru":{"bic":"044525225","account":"40817810000000000001","full_name":"Ann Lee","is_fast":false}}}`
	tests := []struct {
		kind   codec.CommandKind
		value  func(t *testing.T) string
		state  bool // a session state must follow
		status codec.CommandStatus
	}{
		{codec.KindInitPayout, func(*testing.T) string {
			return fmt.Sprintf(`{"instrument":%s,"amount":5000,"currency":"rub"}`, cardJSON(cardSuccess))
		}, true, codec.StatusAccepted},
		{codec.KindInitPayment, func(*testing.T) string { return initPaymentJSON(cardSuccess, 5000) }, true, codec.StatusAccepted},
		{codec.KindCreateSession, func(*testing.T) string { return `{"amount":5000,"currency":"rub"}` }, true, codec.StatusAccepted},
		{codec.KindStartPayout, func(t *testing.T) string {
			return fmt.Sprintf(`{"session_id":%q,"instrument":%s,"amount":5000,"currency":"rub"}`, e.createSession(t).ID, ruAccount)
		}, true, codec.StatusAccepted},
		{codec.KindStartPayment, func(t *testing.T) string {
			return fmt.Sprintf(`{"session_id":%q,"instrument":%s,"amount":5000,"currency":"rub","customer":%s,"participants":%s}`,
				e.createSession(t).ID, cardJSON(cardSuccess), customerJSON, senderJSON)
		}, true, codec.StatusAccepted},
		{codec.KindCapture, func(t *testing.T) string {
			return fmt.Sprintf(`{"session_id":%q}`, e.initPayment(t, cardHold).ID)
		}, true, codec.StatusAccepted},
		{codec.KindRefund, func(t *testing.T) string {
			return fmt.Sprintf(`{"session_id":%q,"amount":1000,"currency":"rub"}`, e.initPayment(t, cardSuccess).ID)
		}, true, codec.StatusAccepted},
		{codec.KindConfirm, func(t *testing.T) string {
			return fmt.Sprintf(`{"session_id":%q}`, e.initPayment(t, cardConfirm).ID)
		}, true, codec.StatusAccepted},
		{codec.KindCancel, func(t *testing.T) string {
			return fmt.Sprintf(`{"session_id":%q}`, e.initPayment(t, cardConfirm).ID)
		}, true, codec.StatusAccepted},
		{codec.KindStatusRefresh, func(t *testing.T) string {
			return fmt.Sprintf(`{"session_id":%q}`, e.initPayment(t, cardSuccess).ID)
		}, true, codec.StatusAccepted},
		{codec.KindFPSVerification, func(*testing.T) string {
			return `{"phone":"79000000000","bank_id":"100000000111","recipient":{"first_name":"Ann","last_name":"Lee","middle_name":"M"}}`
		}, true, codec.StatusAccepted},
		{codec.KindBankPayPush, func(t *testing.T) string {
			return fmt.Sprintf(`{"session_id":%q,"phone":"79000000000"}`, e.initPayment(t, cardSuccess).ID)
		}, false, codec.StatusAccepted},
		// No recurring token exists in a fresh sandbox: the service's final
		// answer comes back as a rejected result.
		{codec.KindDisableRecurring, func(*testing.T) string { return `{"token":"rt_missing"}` }, false, codec.StatusRejected},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			k := key(string(tt.kind))
			e.produce(t, e.command(tt.kind, k, tt.value(t)))
			res := e.out.result(t, k, 30*time.Second)
			if res.Status != tt.status || res.Kind != tt.kind {
				t.Fatalf("result = %s %s (%s: %s), want %s", res.Kind, res.Status, deref(res.ErrorCode), deref(res.ErrorDescription), tt.status)
			}
			if res.SourceTopic != e.topics.Commands[tt.kind] || res.Attempts < 1 {
				t.Errorf("result origin/attempts = %s/%d", res.SourceTopic, res.Attempts)
			}
			if !tt.state {
				return
			}
			if res.SessionID == nil {
				t.Fatalf("result names no session")
			}
			e.out.wait(t, 10*time.Second, "session state of "+*res.SessionID, func() bool {
				for _, st := range e.out.sessions[*res.SessionID] {
					if st.IdempotencyKey != nil && *st.IdempotencyKey == k && st.Source == codec.SourceAPIResponse {
						return true
					}
				}
				return false
			})
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
