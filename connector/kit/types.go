package kit

//go:generate go test -run TestKindsFileIsGenerated|TestAsyncAPICommandsAreTheKinds -update .

import (
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/sensitive"
	"github.com/paysession/paysession/schemas"
)

// The types of this package are the connector's own record types: a value
// built here encodes exactly as the connector decodes it, and a value
// decoded here holds every field the connector wrote.

// Record is a value with an Avro schema: every command and outcome type.
type Record = codec.Record

// SchemaName names an Avro schema (the .avsc file name without extension).
type SchemaName = schemas.Name

// Commands.
type (
	// Command is any command value; the concrete types are the pointers
	// *InitPayout, *Capture, ... of this package.
	Command = codec.Command
	// CommandKind names a command kind (init_payout, capture, ...); the
	// kinds, their constants and command types are in kinds.go, generated
	// from the codec's.
	CommandKind = codec.CommandKind
)

// Parts of commands.
type (
	Instrument     = codec.Instrument
	Card           = codec.Card
	BankCard       = codec.BankCard
	TokenizedCard  = codec.TokenizedCard
	EncryptedCard  = codec.EncryptedCard
	BankAccount    = codec.BankAccount
	RUAccount      = codec.RUAccount
	FPSAccount     = codec.FPSAccount
	Customer       = codec.Customer
	Participants   = codec.Participants
	Sender         = codec.Sender
	Recipient      = codec.Recipient
	PaymentOptions = codec.PaymentOptions
	// Metadata is partner metadata: a JSON document (see NewMetadata).
	Metadata = codec.Metadata
	// Route is the partner project and submerchant a command names (empty:
	// the connector's configured ones); every command has Route().
	Route = codec.Route
	// PAN is a card number; it prints masked and is written in full only
	// into the command's value.
	PAN = sensitive.PAN
	// SecurityCode is a card security code; it prints masked.
	SecurityCode = sensitive.SecurityCode
)

// Outcomes.
type (
	CommandResult     = codec.CommandResult
	CommandStatus     = codec.CommandStatus
	SessionState      = codec.SessionState
	SessionSource     = codec.SessionSource
	Session           = codec.Session
	Operation         = codec.Operation
	OperationKind     = codec.OperationKind
	OperationRefund   = codec.OperationRefund
	Redirect          = codec.Redirect
	RecurringToken    = codec.RecurringToken
	InstrumentSummary = codec.InstrumentSummary
	WebhookEvent      = codec.WebhookEvent
	DeadLetter        = codec.DeadLetter
	Header            = codec.Header
	WalletBalance     = codec.WalletBalance
	FPSBanks          = codec.FPSBanks
	FPSBank           = codec.FPSBank
)

// Command statuses of a CommandResult.
const (
	StatusAccepted      = codec.StatusAccepted
	StatusRejected      = codec.StatusRejected
	StatusExpired       = codec.StatusExpired
	StatusInvalid       = codec.StatusInvalid
	StatusIndeterminate = codec.StatusIndeterminate
)

// Sources of a SessionState.
const (
	SourceAPIResponse = codec.SourceAPIResponse
	SourceWebhook     = codec.SourceWebhook
	SourcePoll        = codec.SourcePoll
)

// Operation kinds.
const (
	OperationPayment = codec.OperationPayment
	OperationPayout  = codec.OperationPayout
)

// Instrument and card types (the member of a union that is set).
const (
	InstrumentCard        = codec.InstrumentCard
	InstrumentBankAccount = codec.InstrumentBankAccount
	CardBank              = codec.CardBank
	CardTokenized         = codec.CardTokenized
	CardEncrypted         = codec.CardEncrypted
	SystemRU              = codec.SystemRU
	SystemFPS             = codec.SystemFPS
)

// Kinds returns every command kind in a stable order.
func Kinds() []CommandKind { return codec.Kinds() }

// ParseKind returns the command kind named s (init_payout, capture, ...).
func ParseKind(s string) (CommandKind, error) { return codec.ParseKind(s) }

// NewMetadata returns the compacted JSON document raw as command metadata,
// or an error when raw is not valid JSON.
func NewMetadata(raw []byte) (Metadata, error) { return codec.NewMetadata(raw) }

// Errors.
type (
	// ValidationError is one invalid field of a command; Validate and
	// Encode join one per field with errors.Join.
	ValidationError = codec.ValidationError
	// DecodeError is a value that cannot be decoded; it names the field
	// when one is known and never quotes card data.
	DecodeError = codec.DecodeError
	// RegistryError is a failure to reach the schema registry: transient,
	// retry later.
	RegistryError = codec.RegistryError
)
