package sessionstate

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/codec"
)

func TestHoldsOrderPublishers(t *testing.T) {
	h := NewHolds()
	if !h.AdmitAndHold("ps_1", func() bool { return true }) {
		t.Fatal("admitted state not held")
	}
	if h.AdmitAndHold("ps_2", func() bool { return false }) {
		t.Fatal("refused state reported as held")
	}
	// ps_2 was never held: Do runs at once.
	ran := false
	if err := h.Do(context.Background(), "ps_2", func() { ran = true }); err != nil || !ran {
		t.Fatalf("Do on an unheld session: ran=%v err=%v", ran, err)
	}
	// ps_1 is held: Do waits until Release.
	done := make(chan error, 1)
	started := make(chan struct{})
	order := make(chan string, 2)
	go func() {
		close(started)
		done <- h.Do(context.Background(), "ps_1", func() { order <- "webhook" })
	}()
	<-started
	select {
	case err := <-done:
		t.Fatalf("Do returned while the session was held: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	order <- "commit"
	h.Release("ps_1")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if a, b := <-order, <-order; a != "commit" || b != "webhook" {
		t.Fatalf("order = %s, %s; want commit, webhook", a, b)
	}
}

func TestHoldsCountAndTimeout(t *testing.T) {
	h := NewHolds()
	h.AdmitAndHold("ps_1", func() bool { return true })
	h.AdmitAndHold("ps_1", func() bool { return true })
	h.Release("ps_1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := h.Do(ctx, "ps_1", func() { t.Error("ran while still held once") }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Do = %v, want deadline exceeded", err)
	}
	h.Release("ps_1", "ps_unknown")
	if err := h.Do(context.Background(), "ps_1", func() {}); err != nil {
		t.Fatal(err)
	}
}

func TestTxnAdmitterHoldsUntilEndAndRetractsOnAbort(t *testing.T) {
	tr, err := NewTracker(TrackerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	a := &TxnAdmitter{Tracker: tr, Holds: NewHolds()}
	at := func(sec int, status string) *codec.SessionState {
		u := time.Date(2026, 11, 23, 10, 0, sec, 0, time.UTC)
		return &codec.SessionState{Session: codec.Session{ID: "ps_7", Status: status, UpdatedAt: &u}}
	}
	if !a.Admit(at(1, "in_progress")) {
		t.Fatal("first state not admitted")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := a.Holds.Do(ctx, "ps_7", func() {}); err == nil {
		t.Fatal("session not held while the transaction is open")
	}
	a.TransactionEnded(true) // aborted: retracted and released
	if err := a.Holds.Do(context.Background(), "ps_7", func() {}); err != nil {
		t.Fatal(err)
	}
	if !tr.Admit(at(1, "in_progress")) {
		t.Fatal("state of an aborted transaction was not retracted")
	}
	if a.Admit(at(0, "created")) {
		t.Fatal("older state admitted")
	}
	a.TransactionEnded(false)
}
