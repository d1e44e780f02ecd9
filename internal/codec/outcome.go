package codec

import (
	"time"

	"github.com/paysession/paysession/schemas"
)

// Record is a value with an Avro schema of package schemas: every command
// and outcome type of this package.
type Record interface {
	SchemaName() schemas.Name
}

// CommandStatus is the final classification of a command (Avro enum CommandStatus).
type CommandStatus string

// Command statuses.
const (
	StatusAccepted      CommandStatus = "accepted"
	StatusRejected      CommandStatus = "rejected"
	StatusExpired       CommandStatus = "expired"
	StatusInvalid       CommandStatus = "invalid"
	StatusIndeterminate CommandStatus = "indeterminate"
)

// SessionSource says where a session state was learned (Avro enum SessionSource).
type SessionSource string

// Session-state sources.
const (
	SourceAPIResponse SessionSource = "api_response"
	SourceWebhook     SessionSource = "webhook"
	SourcePoll        SessionSource = "poll"
)

// OperationKind is the kind of an operation in a session (Avro enum OperationKind).
type OperationKind string

// Operation kinds.
const (
	OperationPayment OperationKind = "payment"
	OperationPayout  OperationKind = "payout"
)

// CommandResult is the one result record of a command
// (topic payments.command-results, key = idempotency key).
type CommandResult struct {
	IdempotencyKey   string        `avro:"idempotency_key" json:"idempotency_key"`
	Kind             CommandKind   `avro:"kind" json:"kind"`
	SourceTopic      string        `avro:"source_topic" json:"source_topic"`
	SourcePartition  int32         `avro:"source_partition" json:"source_partition"`
	SourceOffset     int64         `avro:"source_offset" json:"source_offset"`
	Status           CommandStatus `avro:"status" json:"status"`
	ErrorCode        *string       `avro:"error_code" json:"error_code,omitempty"`
	ErrorDescription *string       `avro:"error_description" json:"error_description,omitempty"`
	ErrorField       *string       `avro:"error_field" json:"error_field,omitempty"`
	ErrorRule        *string       `avro:"error_rule" json:"error_rule,omitempty"`
	SessionID        *string       `avro:"session_id" json:"session_id,omitempty"`
	Attempts         int32         `avro:"attempts" json:"attempts"`
	FirstAttemptAt   *time.Time    `avro:"first_attempt_at" json:"first_attempt_at,omitempty"`
	LastAttemptAt    *time.Time    `avro:"last_attempt_at" json:"last_attempt_at,omitempty"`
	LatencyMicros    int64         `avro:"latency_micros" json:"latency_micros"`
	RecordTimestamp  *time.Time    `avro:"record_timestamp" json:"record_timestamp,omitempty"`
	CompletedAt      time.Time     `avro:"completed_at" json:"completed_at"`
	APIVersion       *int32        `avro:"api_version" json:"api_version,omitempty"`
	// RecurringToken is the token state a disable_recurring call returned.
	RecurringToken *RecurringToken `avro:"recurring_token" json:"recurring_token,omitempty"`
}

// SessionState is a session state learned by the connector
// (topic payments.sessions, key = session id).
type SessionState struct {
	Session        Session       `avro:"session" json:"session"`
	Source         SessionSource `avro:"source" json:"source"`
	ObservedAt     time.Time     `avro:"observed_at" json:"observed_at"`
	APIVersion     int32         `avro:"api_version" json:"api_version"`
	IdempotencyKey *string       `avro:"idempotency_key" json:"idempotency_key,omitempty"`
	WebhookType    *string       `avro:"webhook_type" json:"webhook_type,omitempty"`
	// Project is the partner project the state was learned under; nil
	// means the configured default project.
	Project *string `avro:"project" json:"project,omitempty"`
}

// Session is a version-neutral, masked snapshot of a payment session.
type Session struct {
	ID         string      `avro:"id" json:"id"`
	Status     string      `avro:"status" json:"status"`
	NextAction *string     `avro:"next_action" json:"next_action,omitempty"`
	CreatedAt  *time.Time  `avro:"created_at" json:"created_at,omitempty"`
	UpdatedAt  *time.Time  `avro:"updated_at" json:"updated_at,omitempty"`
	Operations []Operation `avro:"operations" json:"operations"`
}

// Operation is a payment or payout in a session, masked.
type Operation struct {
	Kind              OperationKind      `avro:"kind" json:"kind"`
	ID                string             `avro:"id" json:"id"`
	Status            string             `avro:"status" json:"status"`
	CreatedAt         *time.Time         `avro:"created_at" json:"created_at,omitempty"`
	FinishedAt        *time.Time         `avro:"finished_at" json:"finished_at,omitempty"`
	Amount            *int64             `avro:"amount" json:"amount,omitempty"`
	Currency          *string            `avro:"currency" json:"currency,omitempty"`
	FeeAmount         *int64             `avro:"fee_amount" json:"fee_amount,omitempty"`
	FeeCurrency       *string            `avro:"fee_currency" json:"fee_currency,omitempty"`
	RRN               *string            `avro:"rrn" json:"rrn,omitempty"`
	AuthCode          *string            `avro:"auth_code" json:"auth_code,omitempty"`
	Instrument        *InstrumentSummary `avro:"instrument" json:"instrument,omitempty"`
	CustomerReference *string            `avro:"customer_reference" json:"customer_reference,omitempty"`
	RedirectURL       *string            `avro:"redirect_url" json:"redirect_url,omitempty"`
	Metadata          *Metadata          `avro:"metadata" json:"metadata,omitempty"`
	Refunds           []OperationRefund  `avro:"refunds" json:"refunds,omitempty"`
	Redirect          *Redirect          `avro:"redirect" json:"redirect,omitempty"`
	RecurringToken    *RecurringToken    `avro:"recurring_token" json:"recurring_token,omitempty"`
}

// Redirect is a customer-interaction redirect (3-D Secure): the customer is
// sent to BaseURL with Method, the query parameters QS and, for POST, the
// form parameters Params (PaReq, MD, ...). Non-string parameter values are
// kept as their JSON text.
type Redirect struct {
	URL     *string           `avro:"url" json:"url,omitempty"`
	BaseURL *string           `avro:"base_url" json:"base_url,omitempty"`
	Method  *string           `avro:"method" json:"method,omitempty"`
	QS      map[string]string `avro:"qs" json:"qs"`
	Params  map[string]string `avro:"params" json:"params"`
}

// RecurringToken is a recurring-payment token as the API shows it: the
// token a successful card payment issued, or the state recurrent/disable
// returned (IsActive false; FinishedAt may then show the year 2000).
type RecurringToken struct {
	Token      string     `avro:"token" json:"token"`
	IsActive   bool       `avro:"is_active" json:"is_active"`
	CreatedAt  *time.Time `avro:"created_at" json:"created_at,omitempty"`
	FinishedAt *time.Time `avro:"finished_at" json:"finished_at,omitempty"`
}

// InstrumentSummary is a masked instrument: card bin/last4/brand at most,
// accounts masked. Build it with SummarizeCard / SummarizeAccount.
type InstrumentSummary struct {
	Type           string  `avro:"type" json:"type"`
	CardType       *string `avro:"card_type" json:"card_type,omitempty"`
	CardBIN        *string `avro:"card_bin" json:"card_bin,omitempty"`
	CardLast4      *string `avro:"card_last4" json:"card_last4,omitempty"`
	CardBrand      *string `avro:"card_brand" json:"card_brand,omitempty"`
	BankSystemType *string `avro:"bank_system_type" json:"bank_system_type,omitempty"`
	AccountMasked  *string `avro:"account_masked" json:"account_masked,omitempty"`
	BankID         *string `avro:"bank_id" json:"bank_id,omitempty"`
}

// OperationRefund is a refund of a payment.
type OperationRefund struct {
	ID           string     `avro:"id" json:"id"`
	Status       string     `avro:"status" json:"status"`
	Amount       *int64     `avro:"amount" json:"amount,omitempty"`
	Currency     *string    `avro:"currency" json:"currency,omitempty"`
	IsChargeback bool       `avro:"is_chargeback" json:"is_chargeback"`
	CreatedAt    *time.Time `avro:"created_at" json:"created_at,omitempty"`
	FinishedAt   *time.Time `avro:"finished_at" json:"finished_at,omitempty"`
	RRN          *string    `avro:"rrn" json:"rrn,omitempty"`
	AuthCode     *string    `avro:"auth_code" json:"auth_code,omitempty"`
}

// WebhookEvent is a verified webhook (topic payments.webhook-events, key = session id).
type WebhookEvent struct {
	EventID    string    `avro:"event_id" json:"event_id"`
	Type       string    `avro:"type" json:"type"`
	SessionID  string    `avro:"session_id" json:"session_id"`
	ReceivedAt time.Time `avro:"received_at" json:"received_at"`
	APIVersion int32     `avro:"api_version" json:"api_version"`
	Session    Session   `avro:"session" json:"session"`
}

// DeadLetter is a command record that could not be decoded or validated
// (topic payments.dead-letter, key = original key). It carries the original
// bytes so that the record can be redriven: protect it like a command topic.
type DeadLetter struct {
	OriginalTopic     string     `avro:"original_topic" json:"original_topic"`
	OriginalPartition int32      `avro:"original_partition" json:"original_partition"`
	OriginalOffset    int64      `avro:"original_offset" json:"original_offset"`
	OriginalKey       []byte     `avro:"original_key" json:"original_key,omitempty"`
	OriginalValue     []byte     `avro:"original_value" json:"-"`
	OriginalHeaders   []Header   `avro:"original_headers" json:"original_headers,omitempty"`
	OriginalTimestamp *time.Time `avro:"original_timestamp" json:"original_timestamp,omitempty"`
	Error             string     `avro:"error" json:"error"`
	ErrorField        *string    `avro:"error_field" json:"error_field,omitempty"`
	FailedAt          time.Time  `avro:"failed_at" json:"failed_at"`
}

// Header is a Kafka record header.
type Header struct {
	Key   string `avro:"key" json:"key"`
	Value []byte `avro:"value" json:"value,omitempty"`
}

// WalletBalance is the deposit balance of one wallet
// (topic payments.wallet-balances, key = wallet id).
type WalletBalance struct {
	WalletID   string    `avro:"wallet_id" json:"wallet_id"`
	Amount     int64     `avro:"amount" json:"amount"`
	Currency   string    `avro:"currency" json:"currency"`
	ObservedAt time.Time `avro:"observed_at" json:"observed_at"`
	APIVersion int32     `avro:"api_version" json:"api_version"`
}

// FPSBanks is the list of FPS banks (topic payments.fps-banks).
type FPSBanks struct {
	Banks      []FPSBank `avro:"banks" json:"banks"`
	ObservedAt time.Time `avro:"observed_at" json:"observed_at"`
}

// FPSBank is one bank of the Faster Payment System.
type FPSBank struct {
	ID      string `avro:"id" json:"id"`
	EngName string `avro:"eng_name" json:"eng_name"`
	RuName  string `avro:"ru_name" json:"ru_name"`
}

// SchemaName implementations of the outcome types.
func (*CommandResult) SchemaName() schemas.Name { return schemas.CommandResult }
func (*SessionState) SchemaName() schemas.Name  { return schemas.SessionState }
func (*WebhookEvent) SchemaName() schemas.Name  { return schemas.WebhookEvent }
func (*DeadLetter) SchemaName() schemas.Name    { return schemas.DeadLetter }
func (*WalletBalance) SchemaName() schemas.Name { return schemas.WalletBalance }
func (*FPSBanks) SchemaName() schemas.Name      { return schemas.FPSBanks }
