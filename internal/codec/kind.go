package codec

import (
	"fmt"
	"strings"

	"github.com/paysession/paysession/schemas"
)

// CommandKind names a command; it is also the Avro enum CommandKind and the
// name of the command's schema.
type CommandKind string

// The command kinds, one command topic each.
const (
	KindInitPayout       CommandKind = "init_payout"
	KindInitPayment      CommandKind = "init_payment"
	KindCreateSession    CommandKind = "create_session"
	KindStartPayout      CommandKind = "start_payout"
	KindStartPayment     CommandKind = "start_payment"
	KindCapture          CommandKind = "capture"
	KindRefund           CommandKind = "refund"
	KindConfirm          CommandKind = "confirm"
	KindCancel           CommandKind = "cancel"
	KindDisableRecurring CommandKind = "disable_recurring"
	KindFPSVerification  CommandKind = "fps_verification"
	KindStatusRefresh    CommandKind = "status_refresh"
	KindBankPayPush      CommandKind = "bankpay_push"
)

// Kinds returns every command kind in a stable order.
func Kinds() []CommandKind {
	out := make([]CommandKind, len(schemas.Commands))
	for i, n := range schemas.Commands {
		out[i] = CommandKind(n)
	}
	return out
}

// ParseKind returns the command kind named s.
func ParseKind(s string) (CommandKind, error) {
	for _, k := range Kinds() {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown command kind %q", s)
}

// SchemaName returns the name of the kind's schema in package schemas.
func (k CommandKind) SchemaName() schemas.Name { return schemas.Name(k) }

// DefaultTopic returns the default command topic of the kind,
// payments.commands.<kind with - instead of _>.
func (k CommandKind) DefaultTopic() string {
	return "payments.commands." + strings.ReplaceAll(string(k), "_", "-")
}

// New returns a new zero command of the kind, or nil for an unknown kind.
func (k CommandKind) New() Command {
	switch k {
	case KindInitPayout:
		return &InitPayout{}
	case KindInitPayment:
		return &InitPayment{}
	case KindCreateSession:
		return &CreateSession{}
	case KindStartPayout:
		return &StartPayout{}
	case KindStartPayment:
		return &StartPayment{}
	case KindCapture:
		return &Capture{}
	case KindRefund:
		return &Refund{}
	case KindConfirm:
		return &Confirm{}
	case KindCancel:
		return &Cancel{}
	case KindDisableRecurring:
		return &DisableRecurring{}
	case KindFPSVerification:
		return &FPSVerification{}
	case KindStatusRefresh:
		return &StatusRefresh{}
	case KindBankPayPush:
		return &BankPayPush{}
	}
	return nil
}
