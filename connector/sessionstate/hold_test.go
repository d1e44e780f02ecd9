package sessionstate

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/codec"
)

// hold admits and holds id in h, failing the test on an error.
func hold(t *testing.T, h *Holds, id string, admit bool) bool {
	t.Helper()
	ok, err := h.AdmitAndHold(context.Background(), id, func() bool { return admit })
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// do runs fn through h.Do, failing the test on an error.
func do(t *testing.T, h *Holds, id string, fn func() bool) func() {
	t.Helper()
	settle, err := h.Do(context.Background(), id, fn)
	if err != nil {
		t.Fatal(err)
	}
	return settle
}

func TestHoldsOrderPublishers(t *testing.T) {
	h := NewHolds()
	if !hold(t, h, "ps_1", true) {
		t.Fatal("admitted state not held")
	}
	if hold(t, h, "ps_2", false) {
		t.Fatal("refused state reported as held")
	}
	// ps_2 was never held: Do runs at once.
	ran := false
	if settle := do(t, h, "ps_2", func() bool { ran = true; return false }); !ran || settle != nil {
		t.Fatalf("Do on an unheld session: ran=%v, settle for a publish never started: %v", ran, settle != nil)
	}
	// ps_1 is held: Do waits until Release.
	done := make(chan error, 1)
	started := make(chan struct{})
	order := make(chan string, 2)
	go func() {
		close(started)
		_, err := h.Do(context.Background(), "ps_1", func() bool { order <- "webhook"; return false })
		done <- err
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

// TestHoldsWaitForPublishInFlight: the pipeline admits a state of a session
// only after the plain publish started before it was acknowledged.
func TestHoldsWaitForPublishInFlight(t *testing.T) {
	h := NewHolds()
	settle := do(t, h, "ps_1", func() bool { return true })
	if settle == nil {
		t.Fatal("no settle for a started publish")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := h.AdmitAndHold(ctx, "ps_1", func() bool { t.Error("admitted while a publish was in flight"); return true }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AdmitAndHold = %v, want deadline exceeded", err)
	}
	// Other sessions are not delayed.
	if !hold(t, h, "ps_2", true) {
		t.Fatal("ps_2 not admitted")
	}
	admitted := make(chan bool, 1)
	go func() {
		ok, _ := h.AdmitAndHold(context.Background(), "ps_1", func() bool { return true })
		admitted <- ok
	}()
	select {
	case <-admitted:
		t.Fatal("admitted before the publish settled")
	case <-time.After(20 * time.Millisecond):
	}
	settle()
	settle() // settling twice counts once
	if !<-admitted {
		t.Fatal("not admitted after the publish settled")
	}
}

func TestHoldsCountAndTimeout(t *testing.T) {
	h := NewHolds()
	hold(t, h, "ps_1", true)
	hold(t, h, "ps_1", true)
	h.Release("ps_1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := h.Do(ctx, "ps_1", func() bool { t.Error("ran while still held once"); return false }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Do = %v, want deadline exceeded", err)
	}
	h.Release("ps_1", "ps_unknown")
	do(t, h, "ps_1", func() bool { return false })
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
	ctx := context.Background()
	if !a.Admit(ctx, at(1, "in_progress")) {
		t.Fatal("first state not admitted")
	}
	tctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if _, err := a.Holds.Do(tctx, "ps_7", func() bool { return false }); err == nil {
		t.Fatal("session not held while the transaction is open")
	}
	a.TransactionEnded(true) // aborted: retracted and released
	do(t, a.Holds, "ps_7", func() bool { return false })
	if !tr.Admit(at(1, "in_progress")) {
		t.Fatal("state of an aborted transaction was not retracted")
	}
	if a.Admit(ctx, at(0, "created")) {
		t.Fatal("older state admitted")
	}
	a.TransactionEnded(false)
}
