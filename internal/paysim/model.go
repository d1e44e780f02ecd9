package paysim

import (
	"encoding/json"
	"time"
)

// Statuses the sandbox uses (the spec's "values seen" plus canceled).
const (
	statusCreated    = "created"
	statusInProgress = "in_progress"
	statusAccepted   = "accepted"
	statusCanceled   = "canceled"
	statusPending    = "pending"
	statusSucceeded  = "succeeded"
)

// stage is where an operation is in the state table (internal only).
type stage int

const (
	stageProcessing stage = iota // "operation in progress", service completes
	stageAction                  // waiting for the customer (3-D Secure)
	stageConfirm                 // waiting for session/confirm or session/cancel
	stageHold                    // funds frozen, waiting for capture or cancel
	stageFinal
)

type amount struct {
	Value    int64
	Currency string
}

// instrument is a payment or payout instrument with the card resolved.
type instrument struct {
	Type       string // card, bank_account
	CardType   string // bank_card, tokenized_card, encrypted_card
	PAN        string // resolved card number; never rendered in full
	ExpMonth   string
	ExpYear    string
	Token      string
	NumberHash string
	SystemType string
	RU         *ruAccount
	FPSPhone   string
	FPSBank    string
	Raw        map[string]any // bank_account member of other system types
}

type ruAccount struct {
	BIC, Account, FullName, Description string
	IsFast                              bool
}

// sessionData is what session/create (and start) carry for a later start.
type sessionData struct {
	Payout       *instrument
	Payment      *instrument
	Amount       *amount
	Customer     any
	Participants any
	Options      any
	Metadata     json.RawMessage
}

type session struct {
	ID         string
	Project    string
	Version    int    // version of the call that created it: webhook naming
	BaseURL    string // host the partner called: 3-D Secure redirects in webhooks
	Status     string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	NextAction string
	Data       sessionData
	Payouts    []*operation
	Payments   []*operation
}

type operation struct {
	ID           string
	Payout       bool
	FPSCheck     bool
	Status       string
	Stage        stage
	CreatedAt    time.Time
	FinishedAt   time.Time
	Customer     any
	Instrument   *instrument
	Amount       amount
	Fee          *amount
	Txn          *txnInfo
	Options      any
	Participants any
	Interaction  bool // customer_interaction redirect shown
	Metadata     json.RawMessage
	Refunds      []*refund
	Frozen       int64 // hold payments: frozen amount
	Captured     int64 // money actually taken (payments)
	Recurrent    *recurrentToken
	Authed       bool // 3-D Secure passed
	Reason       string
}

type refund struct {
	ID         string
	Status     string
	CreatedAt  time.Time
	FinishedAt time.Time
	Chargeback bool
	Release    bool // uncaptured remainder of a partial capture
	Amount     amount
	Txn        *txnInfo
	Metadata   json.RawMessage
}

type txnInfo struct{ RRN, AuthCode string }

type recurrentToken struct {
	Token      string
	Project    string // the project whose payment issued it
	SessionID  string // the session of that payment
	PAN        string
	CreatedAt  time.Time
	FinishedAt time.Time
	Active     bool
}

type publicToken struct {
	Token     string
	Project   string
	Widget    string
	SessionID string
	CreatedAt time.Time
	Used      bool
}

func (o *operation) final() bool { return o.Stage == stageFinal }

// refundable is what was paid and not yet refunded (releases excluded).
func (o *operation) refundable() int64 {
	left := o.Captured
	for _, r := range o.Refunds {
		if !r.Release {
			left -= r.Amount.Value
		}
	}
	return left
}

func (s *session) find(opID string) *operation {
	for _, list := range [][]*operation{s.Payments, s.Payouts} {
		for _, o := range list {
			if o.ID == opID {
				return o
			}
		}
	}
	return nil
}

// waiting returns the operation that waits for the partner, if any.
func (s *session) waiting() *operation {
	for _, list := range [][]*operation{s.Payments, s.Payouts} {
		for _, o := range list {
			if o.Stage == stageConfirm || o.Stage == stageHold {
				return o
			}
		}
	}
	return nil
}

// settle derives the session status and next_action from its operations.
func (s *session) settle(now time.Time) {
	s.UpdatedAt = now
	s.NextAction = ""
	if w := s.waiting(); w != nil {
		s.NextAction = map[stage]string{stageConfirm: "confirm", stageHold: "capture"}[w.Stage]
	}
	all := append(append([]*operation{}, s.Payments...), s.Payouts...)
	if len(all) == 0 {
		return
	}
	for _, o := range all {
		if !o.final() {
			s.Status = statusInProgress
			return
		}
	}
	s.Status = statusAccepted
	if len(all) == 1 && all[0].FPSCheck && all[0].Status == statusCanceled {
		s.Status = statusCanceled
	}
}
