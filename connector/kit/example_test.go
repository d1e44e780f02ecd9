package kit_test

import (
	"context"
	"fmt"
	"time"

	"github.com/paysession/paysession/connector/kit"
)

// A payroll system writes an init-payout command. The record's key is the
// idempotency key; the value is strict JSON here (FormatSingleObject and
// FormatConfluent write Avro instead).
func ExampleEncoder_Record() {
	enc, err := kit.NewEncoder(kit.EncoderConfig{Format: kit.FormatJSON})
	if err != nil {
		panic(err)
	}
	cmd := &kit.InitPayout{
		Instrument: kit.Instrument{Type: kit.InstrumentCard, Card: &kit.Card{Type: kit.CardBank,
			BankCard: &kit.BankCard{Number: "4111111111111111", ExpirationMonth: "12", ExpirationYear: "29"}}},
		Amount: 250000, Currency: "rub",
	}
	rec, err := enc.Record(context.Background(), "payroll-2026-11-001", cmd)
	if err != nil {
		panic(err)
	}
	fmt.Println(rec.Topic, string(rec.Key))
	fmt.Printf("%v\n", cmd.Instrument.Card.BankCard.Number) // card numbers print masked
	// Output:
	// payments.commands.init-payout payroll-2026-11-001
	// 411111******1111
}

// A ledger reads a command result in whichever Avro form the connector wrote
// it (single-object here; with DecoderConfig.Registry also Confluent).
func ExampleDecoder_DecodeAny() {
	value := mustSingleObject(&kit.CommandResult{IdempotencyKey: "payroll-2026-11-001", Kind: kit.KindInitPayout,
		Status: kit.StatusAccepted, SessionID: ptr("ps_1001"), CompletedAt: time.Unix(1700000000, 0).UTC()})

	dec, err := kit.NewDecoder(kit.DecoderConfig{})
	if err != nil {
		panic(err)
	}
	rec, err := dec.DecodeAny(context.Background(), value)
	if err != nil {
		panic(err)
	}
	switch r := rec.(type) {
	case *kit.CommandResult:
		fmt.Println(r.IdempotencyKey, r.Status, *r.SessionID)
	}
	// Output: payroll-2026-11-001 accepted ps_1001
}

// States of one session may arrive out of order; Latest keeps the newest.
// It forgets a session once its newest state is older than the horizon (7
// days by default), and from then on refuses the session's old states as
// stale but keeps a new one, such as a chargeback's.
func ExampleLatest() {
	t0 := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	now := t0 // a clock for the example; NewLatest() reads time.Now
	latest, err := kit.NewLatestWith(kit.LatestConfig{Now: func() time.Time { return now }})
	if err != nil {
		panic(err)
	}
	state := func(status string, at time.Time) *kit.SessionState {
		return &kit.SessionState{Session: kit.Session{ID: "ps_1001", Status: status, UpdatedAt: &at}}
	}
	fmt.Println(latest.Offer(state("in_progress", t0)))
	fmt.Println(latest.Offer(state("accepted", t0.Add(time.Minute))))
	fmt.Println(latest.Offer(state("in_progress", t0))) // a late, older record
	s, _ := latest.Get("ps_1001")
	fmt.Println(s.Session.Status)

	now = t0.Add(30 * 24 * time.Hour)
	fmt.Println(latest.Len())                                         // forgotten
	fmt.Println(latest.Offer(state("accepted", t0.Add(time.Minute)))) // read again: stale
	fmt.Println(latest.Offer(state("accepted", now)))                 // a chargeback: new
	// Output:
	// true
	// true
	// false
	// accepted
	// 0
	// false
	// true
}

// A webhook may be published more than once; act on its event id once.
func ExampleSeen() {
	seen, err := kit.NewSeen(kit.SeenConfig{})
	if err != nil {
		panic(err)
	}
	for _, id := range []string{"9f2c", "9f2c", "4ab1"} {
		fmt.Println(id, seen.First(id))
	}
	// Output:
	// 9f2c true
	// 9f2c false
	// 4ab1 true
}

func mustSingleObject(r kit.Record) []byte {
	b, err := kit.EncodeSingleObject(r)
	if err != nil {
		panic(err)
	}
	return b
}

func ptr[T any](v T) *T { return &v }
