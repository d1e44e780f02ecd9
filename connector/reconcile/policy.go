package reconcile

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/fields"
)

// Confirmation modes. Exactly one party decides each session waiting for
// session/confirm, never both.
const (
	// ConfirmUpstream (default): the connector never confirms; upstream
	// systems send confirm or cancel commands.
	ConfirmUpstream = "upstream"
	// ConfirmAuto: the reconciler confirms the sessions that match the
	// rules (AutoKinds, AutoMaxAmount, AutoCurrencies) and leaves every
	// other session to upstream commands.
	ConfirmAuto = "auto"
)

// ConfirmPolicy says who confirms sessions that wait for session/confirm
// and when the deadline warning is published.
type ConfirmPolicy struct {
	// Mode is ConfirmUpstream (default) or ConfirmAuto.
	Mode string
	// AutoKinds lists the operation kinds confirmed automatically
	// ("payout", "payment"). Required in auto mode.
	AutoKinds []codec.OperationKind
	// AutoMaxAmount is the largest amount (minor units) of any waiting
	// operation confirmed automatically. Required (> 0) in auto mode.
	AutoMaxAmount int64
	// AutoCurrencies, when set, limits auto-confirmation to these
	// lowercase currency codes.
	AutoCurrencies []string
	// Deadline is how long the service waits for a confirmation before it
	// cancels the operation. Default 240m (the spec's limit).
	Deadline time.Duration
	// WarnBefore: this long before the deadline, a session still waiting
	// gets a fresh poll and its state is published with the
	// paysession-warning: confirm_deadline header. Default 30m.
	WarnBefore time.Duration
}

// defaultConfirmDeadline is the spec's 240 minutes for session/confirm.
const defaultConfirmDeadline = 240 * time.Minute

func (p *ConfirmPolicy) defaults() {
	fields.Default(&p.Mode, ConfirmUpstream)
	fields.Default(&p.Deadline, defaultConfirmDeadline)
	fields.Default(&p.WarnBefore, 30*time.Minute)
}

// Validate reports every invalid field at once.
func (p ConfirmPolicy) Validate() error {
	var errs []error
	switch p.Mode {
	case "", ConfirmUpstream:
		if len(p.AutoKinds) > 0 || p.AutoMaxAmount != 0 || len(p.AutoCurrencies) > 0 {
			errs = append(errs, errors.New("Auto*: auto-confirmation rules set but Mode is not auto"))
		}
	case ConfirmAuto:
		if len(p.AutoKinds) == 0 {
			errs = append(errs, errors.New("AutoKinds: required in auto mode"))
		}
		if p.AutoMaxAmount <= 0 {
			errs = append(errs, errors.New("AutoMaxAmount: must be > 0 in auto mode"))
		}
	default:
		errs = append(errs, fmt.Errorf("Mode: %q, want upstream or auto", p.Mode))
	}
	for _, k := range p.AutoKinds {
		if k != codec.OperationPayout && k != codec.OperationPayment {
			errs = append(errs, fmt.Errorf("AutoKinds: %q, want payout or payment", k))
		}
	}
	if p.Deadline < 0 || p.WarnBefore < 0 {
		errs = append(errs, errors.New("Deadline, WarnBefore: must not be negative"))
	}
	if p.Deadline > 0 && p.WarnBefore >= p.Deadline {
		errs = append(errs, fmt.Errorf("WarnBefore: %s is not shorter than Deadline %s", p.WarnBefore, p.Deadline))
	}
	return errors.Join(errs...)
}

// WaitsForConfirm reports whether a session waits for session/confirm.
func WaitsForConfirm(s *codec.Session) bool {
	return s.NextAction != nil && *s.NextAction == "confirm"
}

// AutoConfirms reports whether the policy confirms s automatically: auto
// mode, s waits for confirmation of at least one pending operation, and
// every operation that is not final has an allowed kind, an amount within
// the limit and, when limited, an allowed currency.
func (p ConfirmPolicy) AutoConfirms(s *codec.Session) bool {
	if p.Mode != ConfirmAuto || len(confirmTargets(s)) == 0 {
		return false
	}
	waiting := 0
	for _, op := range s.Operations {
		if isFinalOp(op.Status) {
			continue
		}
		waiting++
		if !slices.Contains(p.AutoKinds, op.Kind) || op.Amount == nil || *op.Amount > p.AutoMaxAmount {
			return false
		}
		if len(p.AutoCurrencies) > 0 && (op.Currency == nil || !slices.Contains(p.AutoCurrencies, strings.ToLower(*op.Currency))) {
			return false
		}
	}
	return waiting > 0
}

func isFinalOp(status string) bool {
	switch strings.ToLower(status) {
	case "succeeded", "canceled", "cancelled", "failed", "declined", "rejected", "expired":
		return true
	}
	return false
}
