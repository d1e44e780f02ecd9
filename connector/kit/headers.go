package kit

import "github.com/twmb/franz-go/pkg/kgo"

// Record headers a consumer may act on. Every header value is UTF-8 text.
// schemas/asyncapi.yaml describes each on its topic; a test keeps these
// names equal to the ones the connector writes.
const (
	// HeaderEventID is on webhook events (and session updates from a
	// webhook): the event id, hex SHA-256 of what the webhook means
	// (type, session and operation states, updated_at), not of its bytes.
	// Dedupe by it.
	HeaderEventID = "paysession-event-id"
	// HeaderWebhookType is on webhook events: the webhook's type.
	HeaderWebhookType = "paysession-webhook-type"
	// HeaderWarning is on a session state published again as a warning:
	// WarningConfirmDeadline or WarningStale.
	HeaderWarning = "paysession-warning"
	// HeaderConfirmDeadline is the RFC 3339 time by which a session waiting
	// for confirmation must be confirmed (with WarningConfirmDeadline).
	HeaderConfirmDeadline = "paysession-confirm-deadline"
	// HeaderAgeFrom is the RFC 3339 time a stale session's age counts from
	// (with WarningStale).
	HeaderAgeFrom = "paysession-age-from"
	// HeaderError, HeaderErrorField and HeaderErrorCode are on dead letters:
	// why the command was not executed.
	HeaderError      = "paysession-error"
	HeaderErrorField = "paysession-error-field"
	HeaderErrorCode  = "paysession-error-code"
	// HeaderKind is on dead letters and retry records: the command kind.
	HeaderKind = "paysession-kind"
	// HeaderDeadLetterValue says what a dead letter's original_value holds:
	// "original", "masked" or "withheld".
	HeaderDeadLetterValue = "paysession-dlq-value"
	// HeaderDeadLetterOriginalSize is the size of a withheld original value.
	HeaderDeadLetterOriginalSize = "paysession-dlq-original-size"
	// HeaderRecordTime, on a command written by the connector's redrive,
	// is the original record time (Unix milliseconds).
	HeaderRecordTime = "paysession-record-time"
	// HeaderRedrive, on a redriven command, names its dead letter.
	HeaderRedrive = "paysession-redrive"
	// HeaderRedriven marks a redrive marker on the dead-letter topic (a
	// record with no value, not a dead letter): skip such records.
	HeaderRedriven = "paysession-redriven"
)

// Warnings of HeaderWarning.
const (
	WarningConfirmDeadline = "confirm_deadline"
	WarningStale           = "stale"
)

// HeaderValue returns the value of the first header of r named key.
func HeaderValue(r *kgo.Record, key string) (string, bool) {
	for _, h := range r.Headers {
		if h.Key == key {
			return string(h.Value), true
		}
	}
	return "", false
}
