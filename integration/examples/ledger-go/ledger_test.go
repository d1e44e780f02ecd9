package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/paysession/paysession/connector/kit"
)

func state(status string, at time.Time, opStatus string) *kit.SessionState {
	amount, cur, last4 := int64(15000), "rub", "1111"
	return &kit.SessionState{Session: kit.Session{ID: "ps_1", Status: status, UpdatedAt: &at, Operations: []kit.Operation{{
		Kind: kit.OperationPayout, ID: "po_1", Status: opStatus, Amount: &amount, Currency: &cur,
		Instrument: &kit.InstrumentSummary{Type: "card", CardLast4: &last4}}}}}
}

// TestLedgerBooksOnce: replays, stale states and redelivered webhooks
// change nothing; the newest state wins whatever the order.
func TestLedgerBooksOnce(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	l := NewLedger()
	steps := []struct {
		name    string
		rec     kit.Record
		changed bool
	}{
		{"first state", state("in_progress", t0, "in_progress"), true},
		{"newer state", state("accepted", t0.Add(time.Second), "succeeded"), true},
		{"stale state read late", state("in_progress", t0, "in_progress"), false},
		{"the newest state again", state("accepted", t0.Add(time.Second), "succeeded"), false},
		{"result", &kit.CommandResult{IdempotencyKey: "k-0001", Status: kit.StatusAccepted}, true},
		{"result again", &kit.CommandResult{IdempotencyKey: "k-0001", Status: kit.StatusAccepted}, false},
		{"webhook", &kit.WebhookEvent{EventID: "e1"}, true},
		{"webhook published again", &kit.WebhookEvent{EventID: "e1"}, false},
	}
	for _, s := range steps {
		if got := l.Apply(s.rec); got != s.changed {
			t.Fatalf("%s: changed %v, want %v", s.name, got, s.changed)
		}
	}
	if e := l.Entries(); len(e) != 1 || e[0].Status != "succeeded" || e[0].Amount != 15000 || e[0].CardLast4 != "1111" {
		t.Fatalf("entries %+v", e)
	}
}

// TestLedgerAgainstConnector runs against a connector on a real broker (set
// up by integration/examples in the main module, which passes the topics in
// LEDGER_* variables): it writes init-payout commands with the kit
// (Confluent wire format through the registry), reads what the connector
// made of them, and checks that reading everything again in a new group
// books nothing twice.
func TestLedgerAgainstConnector(t *testing.T) {
	brokers := os.Getenv("LEDGER_BROKERS")
	if brokers == "" {
		t.Skip("LEDGER_BROKERS not set: run by integration/examples against a connector")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	registry := os.Getenv("LEDGER_REGISTRY")
	topics := kit.DefaultTopics()
	topics.CommandResults = os.Getenv("LEDGER_TOPIC_COMMAND_RESULTS")
	topics.Sessions = os.Getenv("LEDGER_TOPIC_SESSIONS")
	topics.WebhookEvents = os.Getenv("LEDGER_TOPIC_WEBHOOK_EVENTS")
	topics.Commands = map[kit.CommandKind]string{kit.KindInitPayout: os.Getenv("LEDGER_TOPIC_INIT_PAYOUT")}
	run := os.Getenv("LEDGER_RUN")

	reg, err := sr.NewClient(sr.URLs(registry))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := kit.NewEncoder(kit.EncoderConfig{Format: kit.FormatConfluent, Registry: reg, Topics: topics})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	amounts := map[string]int64{"ledger-" + run + "-1": 21000, "ledger-" + run + "-2": 22000}
	for key, amount := range amounts {
		rec, err := enc.Record(ctx, key, &kit.InitPayout{Amount: amount, Currency: "rub",
			Instrument: kit.Instrument{Type: kit.InstrumentCard, Card: &kit.Card{Type: kit.CardBank,
				BankCard: &kit.BankCard{Number: "4111111111111111", ExpirationMonth: "12", ExpirationYear: "29"}}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if rec.Value[0] != 0 {
			t.Fatalf("value is not in the Confluent wire format: %#x", rec.Value[0])
		}
	}

	read := func(group string) *Ledger {
		c, err := NewConsumer(Config{Brokers: strings.Split(brokers, ","), Registry: registry, Group: group, Topics: topics})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		l := NewLedger()
		for !settled(l, amounts) {
			pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
			_, err := c.Poll(pctx, l)
			pcancel()
			if ctx.Err() != nil {
				t.Fatalf("the connector's outcomes did not all arrive: %d entries %+v", len(l.Entries()), l.Entries())
			}
			if err != nil && pctx.Err() == nil {
				t.Fatal(err)
			}
		}
		return l
	}
	first := read("ledger-" + run)
	for key, amount := range amounts {
		r, _ := first.Result(key)
		if r.Status != kit.StatusAccepted || r.Kind != kit.KindInitPayout || r.SessionID == nil {
			t.Fatalf("result of %s: %+v", key, r)
		}
		s, _ := first.Session(*r.SessionID)
		op := s.Session.Operations[0]
		if *op.Amount != amount || op.Instrument == nil || *op.Instrument.CardLast4 != "1111" || op.Instrument.CardBIN == nil {
			t.Fatalf("session %s: %+v", s.Session.ID, s.Session)
		}
	}
	again := read("ledger-" + run + "-replay")
	if got, want := again.Entries(), first.Entries(); len(got) != len(want) {
		t.Fatalf("a second reading booked %d entries, the first %d", len(got), len(want))
	}
	t.Logf("ledger: %d entries, %d webhook events", len(first.Entries()), first.Webhooks())
}

// settled reports whether every key has a result and its session's newest
// state is final.
func settled(l *Ledger, amounts map[string]int64) bool {
	for key := range amounts {
		r, ok := l.Result(key)
		if !ok || r.SessionID == nil {
			return false
		}
		s, ok := l.Session(*r.SessionID)
		if !ok || !kit.IsFinal(s.Session.Status) {
			return false
		}
	}
	return true
}
