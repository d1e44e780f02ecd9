package paysim

import (
	"sync"
	"time"
)

// LedgerEntry is one money movement. Tests count entries per OperationID
// (and RefundID) to prove that nothing executed twice.
type LedgerEntry struct {
	Seq         int64     `json:"seq"`
	At          time.Time `json:"at"`
	Project     string    `json:"project"`
	SessionID   string    `json:"session_id"`
	OperationID string    `json:"operation_id"`
	RefundID    string    `json:"refund_id,omitempty"`
	// Kind: payment (captured money), hold, hold_release, payout, refund,
	// chargeback.
	Kind     string `json:"kind"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Fee      int64  `json:"fee"`
	// WalletDelta is the change of the project's wallet of Currency
	// (payouts, refunds and chargebacks debit it with amount and fee).
	WalletDelta int64 `json:"wallet_delta"`
}

type ledger struct {
	mu      sync.Mutex
	max     int
	seq     int64
	entries []LedgerEntry
}

func newLedger(max int) *ledger { return &ledger{max: max} }

func (l *ledger) add(e LedgerEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	e.Seq = l.seq
	l.entries = append(l.entries, e)
	if len(l.entries) > l.max {
		l.entries = append([]LedgerEntry(nil), l.entries[len(l.entries)-l.max/2:]...)
	}
}

func (l *ledger) reset() {
	l.mu.Lock()
	l.entries = nil
	l.mu.Unlock()
}

// Ledger returns the money movements, oldest first; sessionID "" means all.
func (s *Server) Ledger(sessionID string) []LedgerEntry {
	s.ledger.mu.Lock()
	defer s.ledger.mu.Unlock()
	var out []LedgerEntry
	for _, e := range s.ledger.entries {
		if sessionID == "" || e.SessionID == sessionID {
			out = append(out, e)
		}
	}
	return out
}

// Execution is one executed API call (idempotent replays and calls rejected
// before execution are not recorded). Started/Finished are wall time.
type Execution struct {
	Seq            int64     `json:"seq"`
	Method         string    `json:"method"`
	Version        int       `json:"version"`
	Project        string    `json:"project"`
	Submerchant    string    `json:"submerchant,omitempty"` // X-PARTNER-SUBMERCHANT of the call
	SessionID      string    `json:"session_id,omitempty"`
	IdempotencyKey string    `json:"idempotency_key,omitempty"`
	Started        time.Time `json:"started"`
	Finished       time.Time `json:"finished"`
	// InFlight counts the calls naming the same session that were executing
	// when this one started, itself included.
	InFlight int    `json:"in_flight"`
	Result   string `json:"result"` // "ok" or the error code
}

type execLog struct {
	mu       sync.Mutex
	max      int
	seq      int64
	entries  []*Execution
	inflight map[string]int
	peak     map[string]int
	peakAll  int
	all      int
}

func newExecLog(max int) *execLog {
	return &execLog{max: max, inflight: map[string]int{}, peak: map[string]int{}}
}

func (l *execLog) reset() {
	l.mu.Lock()
	l.entries, l.peak, l.peakAll = nil, map[string]int{}, 0
	l.mu.Unlock()
}

func (l *execLog) begin(method string, version int, project, submerchant, sessionID, key string) *Execution {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	e := &Execution{Seq: l.seq, Method: method, Version: version, Project: project, Submerchant: submerchant, SessionID: sessionID,
		IdempotencyKey: key, Started: time.Now()}
	l.all++
	l.peakAll = max(l.peakAll, l.all)
	if sessionID != "" {
		l.inflight[sessionID]++
		e.InFlight = l.inflight[sessionID]
		l.peak[sessionID] = max(l.peak[sessionID], e.InFlight)
	}
	return e
}

func (l *execLog) forget(sessionID string) {
	l.mu.Lock()
	delete(l.peak, sessionID)
	l.mu.Unlock()
}

// end records the result; sessionID may now be known (init, create).
func (l *execLog) end(e *Execution, sessionID, result string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all--
	if e.SessionID != "" {
		if l.inflight[e.SessionID]--; l.inflight[e.SessionID] <= 0 {
			delete(l.inflight, e.SessionID)
		}
	} else if sessionID != "" {
		e.SessionID, e.InFlight = sessionID, 1
		l.peak[sessionID] = max(l.peak[sessionID], 1)
	}
	e.Finished, e.Result = time.Now(), result
	l.entries = append(l.entries, e)
	if len(l.entries) > l.max {
		l.entries = append([]*Execution(nil), l.entries[len(l.entries)-l.max/2:]...)
	}
}

// Executions returns the executed calls that named sessionID ("" = all) in
// the order they finished, and the most of them in flight at once.
func (s *Server) Executions(sessionID string) ([]Execution, int) {
	l := s.execs
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Execution
	for _, e := range l.entries {
		if sessionID == "" || e.SessionID == sessionID {
			out = append(out, *e)
		}
	}
	if sessionID == "" {
		return out, l.peakAll
	}
	return out, l.peak[sessionID]
}
