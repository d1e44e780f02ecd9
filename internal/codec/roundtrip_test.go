package codec

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/sensitive"
)

func ptr[T any](v T) *T { return &v }

// sampleCommands returns one fully populated, valid command of every kind.
func sampleCommands() map[CommandKind]Command {
	card := Instrument{Type: InstrumentCard, Card: &Card{Type: CardBank, BankCard: &BankCard{
		Number: sensitive.PAN("4111111111111111"), ExpirationMonth: "12", ExpirationYear: "29",
		SecurityCode: ptr(sensitive.SecurityCode("123")),
	}}}
	ru := Instrument{Type: InstrumentBankAccount, BankAccount: &BankAccount{SystemType: SystemRU, RU: &RUAccount{
		BIC: "044525225", Account: "40817810099910004312", FullName: "Ivan Petrov", Description: ptr("salary"), IsFast: true,
	}}}
	meta := Metadata(`{"order":42}`)
	parts := &Participants{
		Sender:    &Sender{FirstName: ptr("Anna"), LastName: ptr("Smith"), IPv4: ptr("10.0.0.1"), PostalCode: ptr("123456")},
		Recipient: &Recipient{FullName: ptr("Ivan Petrov")},
	}
	cust := Customer{Reference: "cust-1", Emails: []string{"a@example.com"}}
	return map[CommandKind]Command{
		KindInitPayout:  &InitPayout{Instrument: ru, Amount: 10000, Currency: "rub", Participants: parts, Customer: &cust, Metadata: &meta},
		KindInitPayment: &InitPayment{Instrument: card, Amount: 2500, Currency: "usd", Customer: cust, Participants: parts, PaymentOptions: &PaymentOptions{ReturnURL: ptr("https://shop.example/back")}, Metadata: &meta},
		KindCreateSession: &CreateSession{PayoutInstrument: &Instrument{Type: InstrumentCard, Card: &Card{Type: CardTokenized, TokenizedCard: &TokenizedCard{Token: "tok_1"}}},
			Amount: ptr(int64(500)), Currency: ptr("rub"), Customer: &cust},
		KindStartPayout:      &StartPayout{SessionID: "ps_1", Instrument: &ru, Amount: ptr(int64(1)), Currency: ptr("rub")},
		KindStartPayment:     &StartPayment{SessionID: "ps_2", Instrument: &card, Amount: ptr(int64(7)), Currency: ptr("eur"), Customer: &cust},
		KindCapture:          &Capture{SessionID: "ps_3", Amount: ptr(int64(100)), Currency: ptr("rub")},
		KindRefund:           &Refund{SessionID: "ps_4", Metadata: &meta},
		KindConfirm:          &Confirm{SessionID: "ps_5"},
		KindCancel:           &Cancel{SessionID: "ps_6"},
		KindDisableRecurring: &DisableRecurring{Token: "rt_1"},
		KindFPSVerification:  &FPSVerification{Phone: "79000000000", BankID: "100000000111", Recipient: Recipient{FirstName: ptr("Ivan"), LastName: ptr("Petrov"), MiddleName: ptr("I")}},
		KindStatusRefresh:    &StatusRefresh{SessionID: "ps_7"},
		KindBankPayPush:      &BankPayPush{SessionID: "ps_8", Phone: "79000000000"},
	}
}

func TestCommandRoundTripSingleObject(t *testing.T) {
	d, err := NewDecoder(DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for kind, cmd := range sampleCommands() {
		t.Run(string(kind), func(t *testing.T) {
			if err := cmd.Validate(); err != nil {
				t.Fatalf("sample invalid: %v", err)
			}
			b, err := EncodeSingleObject(cmd)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.Decode(context.Background(), kind.DefaultTopic(), kind, b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, cmd) {
				t.Fatalf("round trip:\n got %#v\nwant %#v", got, cmd)
			}
		})
	}
}

func TestOutcomeRoundTrip(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 123456000, time.UTC)
	sess := Session{ID: "ps_1", Status: "in_progress", NextAction: ptr("confirm"), CreatedAt: &now, UpdatedAt: &now,
		Operations: []Operation{{Kind: OperationPayment, ID: "pm_1", Status: "succeeded", Amount: ptr(int64(100)), Currency: ptr("rub"),
			Instrument: &InstrumentSummary{Type: "card", CardBIN: ptr("411111"), CardLast4: ptr("1111")},
			Refunds:    []OperationRefund{{ID: "rf_1", Status: "accepted", IsChargeback: true}}}}}
	for _, v := range []Record{
		&CommandResult{IdempotencyKey: "key-1", Kind: KindCapture, SourceTopic: "t", Status: StatusAccepted, CompletedAt: now, FirstAttemptAt: &now},
		&SessionState{Session: sess, Source: SourceWebhook, ObservedAt: now, APIVersion: 2},
		&WebhookEvent{EventID: "ab", Type: "payment_finished", SessionID: "ps_1", ReceivedAt: now, APIVersion: 1, Session: sess},
		&DeadLetter{OriginalTopic: "t", OriginalValue: []byte{1, 2}, OriginalHeaders: []Header{{Key: "k", Value: []byte("v")}}, Error: "x", FailedAt: now},
		&WalletBalance{WalletID: "w1", Amount: 5, Currency: "rub", ObservedAt: now, APIVersion: 1},
		&FPSBanks{Banks: []FPSBank{{ID: "1", EngName: "Bank", RuName: "Банк"}}, ObservedAt: now},
	} {
		t.Run(string(v.SchemaName()), func(t *testing.T) {
			b, err := MarshalAvro(v)
			if err != nil {
				t.Fatal(err)
			}
			got := reflect.New(reflect.TypeOf(v).Elem()).Interface()
			if _, err := MustSchema(v.SchemaName()).Decode(b, got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, v) {
				t.Fatalf("round trip:\n got %#v\nwant %#v", got, v)
			}
		})
	}
}
