package codec

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGoldenBytes pins the single-object encoding of one record of every
// schema, so an unintended change of the wire format shows up as a diff of
// testdata/golden (refresh with go test -run GoldenBytes -update).
func TestGoldenBytes(t *testing.T) {
	at := time.Date(2026, 11, 23, 10, 0, 0, 123456000, time.UTC)
	records := sampleRecords()
	// No full card number in a snapshot: the golden bytes carry a 4-digit stand-in.
	records[1].(*InitPayment).Instrument.Card.BankCard.Number = "4242"
	records[4].(*StartPayment).Instrument.Card.BankCard.Number = "4242"
	records = append(records,
		&CommandResult{IdempotencyKey: "key-1", Kind: KindRefund, SourceTopic: "payments.commands.refund", SourceOffset: 7,
			Status: StatusAccepted, SessionID: ptr("ps_1"), Attempts: 1, FirstAttemptAt: &at, LastAttemptAt: &at, CompletedAt: at},
		&SessionState{Session: Session{ID: "ps_1", Status: "accepted", CreatedAt: &at, Operations: []Operation{{Kind: OperationPayout, ID: "po_1", Status: "succeeded"}}},
			Source: SourcePoll, ObservedAt: at, APIVersion: 2},
		&WebhookEvent{EventID: "00", Type: "payment_finished", SessionID: "ps_1", ReceivedAt: at, APIVersion: 1, Session: Session{ID: "ps_1", Status: "accepted"}},
		&DeadLetter{OriginalTopic: "t", OriginalValue: []byte("x"), Error: "e", FailedAt: at},
		&WalletBalance{WalletID: "w", Amount: 1, Currency: "rub", ObservedAt: at, APIVersion: 1},
		&FPSBanks{Banks: []FPSBank{{ID: "1", EngName: "a", RuName: "б"}}, ObservedAt: at},
	)
	for _, r := range records {
		b, err := EncodeSingleObject(r)
		if err != nil {
			t.Fatal(err)
		}
		got := hex.EncodeToString(b) + "\n"
		path := filepath.Join("testdata", "golden", string(r.SchemaName())+".hex")
		if *update {
			_ = os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create)", err)
		}
		if got != string(want) {
			t.Errorf("%s: encoding changed:\n got %s\nwant %s", r.SchemaName(), strings.TrimSpace(got), strings.TrimSpace(string(want)))
		}
	}
}
