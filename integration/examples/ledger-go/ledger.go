// Command paysession-ledger is an example ledger service in its own Go
// module: it imports the connector's public package connector/kit (and
// nothing else of the connector) to read the outcome topics exactly once
// and book every payout and payment once by operation id.
//
//	go run . -brokers localhost:9092 [-registry http://registry/apis/ccompat/v7]
//
// How it reads: a consumer group with read_committed (the connector writes
// results and states in transactions), offsets committed only after the
// records of a poll are booked, and booking keyed by operation id, so a
// record read again after a crash books nothing twice. Session states may
// arrive out of order, so the ledger books from the newest state of each
// session (kit.Latest), never from the last record read.
package main

import (
	"sort"
	"sync"

	"github.com/paysession/paysession/connector/kit"
)

// Entry is one booked operation.
type Entry struct {
	OperationID string `json:"operation_id"`
	SessionID   string `json:"session_id"`
	Kind        string `json:"kind"`
	Status      string `json:"status"`
	Amount      int64  `json:"amount"`
	Currency    string `json:"currency"`
	CardLast4   string `json:"card_last4,omitempty"`
}

// Ledger books operations from session states, each once by operation id,
// and keeps the command results by idempotency key.
type Ledger struct {
	latest *kit.Latest
	seen   *kit.Seen

	mu       sync.Mutex
	entries  map[string]Entry // operation id -> entry
	results  map[string]*kit.CommandResult
	webhooks int
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger {
	seen, err := kit.NewSeen(kit.SeenConfig{})
	if err != nil {
		panic(err)
	}
	// The ledger builds its books by reading the sessions topic from the
	// start, so it keeps states of any age (NoHorizon) and bounds its memory
	// by MaxSessions instead: past it the session updated longest ago is
	// forgotten, and a state of a forgotten session is kept only when newer
	// than every state forgotten. A bound above the sessions updated in 7
	// days at peak keeps that floor older than any state still to arrive
	// out of order; each session held costs about 1 KiB (see kit.Latest).
	latest, err := kit.NewLatestWith(kit.LatestConfig{Horizon: kit.NoHorizon, MaxSessions: 100_000})
	if err != nil {
		panic(err)
	}
	return &Ledger{latest: latest, seen: seen, entries: map[string]Entry{}, results: map[string]*kit.CommandResult{}}
}

// Apply takes one decoded outcome record and reports whether it changed
// the ledger. Reading the same records again changes nothing.
func (l *Ledger) Apply(rec kit.Record) bool {
	switch r := rec.(type) {
	case *kit.CommandResult:
		l.mu.Lock()
		defer l.mu.Unlock()
		if _, ok := l.results[r.IdempotencyKey]; ok {
			return false
		}
		l.results[r.IdempotencyKey] = r
		return true
	case *kit.SessionState:
		if !l.latest.Offer(r) {
			return false // older than (or as new as) what was booked
		}
		return l.book(&r.Session)
	case *kit.WebhookEvent:
		if !l.seen.First(r.EventID) {
			return false // the same webhook published again
		}
		l.mu.Lock()
		l.webhooks++
		l.mu.Unlock()
		return true
	}
	return false
}

// book records each operation of the newest state of a session.
func (l *Ledger) book(s *kit.Session) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	changed := false
	for _, op := range s.Operations {
		e := Entry{OperationID: op.ID, SessionID: s.ID, Kind: string(op.Kind), Status: op.Status}
		if op.Amount != nil {
			e.Amount = *op.Amount
		}
		if op.Currency != nil {
			e.Currency = *op.Currency
		}
		if op.Instrument != nil && op.Instrument.CardLast4 != nil {
			e.CardLast4 = *op.Instrument.CardLast4
		}
		if old, ok := l.entries[op.ID]; ok && old == e {
			continue
		}
		l.entries[op.ID] = e
		changed = true
	}
	return changed
}

// Entries returns the booked operations, ordered by operation id.
func (l *Ledger) Entries() []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Entry, 0, len(l.entries))
	for _, e := range l.entries {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].OperationID < out[j].OperationID })
	return out
}

// Result returns the command result of an idempotency key.
func (l *Ledger) Result(key string) (*kit.CommandResult, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.results[key]
	return r, ok
}

// Session returns the newest state of a session.
func (l *Ledger) Session(id string) (*kit.SessionState, bool) { return l.latest.Get(id) }

// Webhooks returns the number of distinct webhook events read.
func (l *Ledger) Webhooks() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.webhooks
}
