package sessionstate

import (
	"strings"
	"time"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/payapi"
)

// FromAPI returns the normalized, masked snapshot of s learned from source
// (codec.SourceAPIResponse, SourceWebhook or SourcePoll) at observedAt
// through API version apiVersion. Payouts come before payments, each in API
// order. Cards keep bin, last4 and brand only; account numbers keep their
// last 4 characters; security codes, names and contacts are dropped. Free
// text the service sends back — the customer reference, metadata (any
// JSON), statuses, a 3-D Secure redirect — goes through the one matcher of
// card data: a card number keeps bin and last4, a security code after its
// name becomes "***", and in metadata so does every value under a member
// named as a security code (mask.go). Identifiers (session, operation and
// refund ids, RRN, auth code, recurring token, FPS bank id) are kept as
// sent: upstream needs them whole, and a 12-digit RRN passes the Luhn check
// one time in ten. Fee currencies are lower case, like amount currencies.
// Callers set IdempotencyKey or WebhookType on the result when they have
// one.
func FromAPI(s *payapi.Session, source string, observedAt time.Time, apiVersion int) *codec.SessionState {
	out := &codec.SessionState{
		Session: codec.Session{
			ID:         s.ID,
			Status:     freeText(s.Status),
			NextAction: optString(freeText(s.NextAction)),
			CreatedAt:  optTime(s.CreatedAt),
			UpdatedAt:  optTime(s.UpdatedAt),
			Operations: make([]codec.Operation, 0, len(s.Payouts)+len(s.Payments)),
		},
		Source:     codec.SessionSource(source),
		ObservedAt: observedAt.UTC(),
		APIVersion: int32(apiVersion),
	}
	for i := range s.Payouts {
		out.Session.Operations = append(out.Session.Operations, operation(codec.OperationPayout, &s.Payouts[i]))
	}
	for i := range s.Payments {
		out.Session.Operations = append(out.Session.Operations, operation(codec.OperationPayment, &s.Payments[i]))
	}
	return out
}

func operation(kind codec.OperationKind, op *payapi.Operation) codec.Operation {
	out := codec.Operation{
		Kind:       kind,
		ID:         op.ID,
		Status:     freeText(op.Status),
		CreatedAt:  optTime(op.CreatedAt),
		FinishedAt: optTimePtr(op.FinishedAt),
		Instrument: summarize(op.Instrument),
	}
	if op.Amount != nil {
		out.Amount, out.Currency = &op.Amount.Value, optString(op.Amount.Currency)
	}
	if op.Fees != nil && op.Fees.MerchantFee != nil {
		// The API writes fee currencies in upper case beside lower-case
		// amount currencies; outcomes use one case.
		out.FeeAmount, out.FeeCurrency = &op.Fees.MerchantFee.Value, optString(strings.ToLower(op.Fees.MerchantFee.Currency))
	}
	if op.TransactionInfo != nil {
		out.RRN, out.AuthCode = optString(op.TransactionInfo.RRN), optString(op.TransactionInfo.AuthCode)
	}
	if op.Customer != nil {
		out.CustomerReference = optString(freeText(op.Customer.Reference))
	}
	if ci := op.CustomerInteraction; ci != nil && ci.Redirect != nil {
		out.Redirect = redirect(ci.Redirect)
		out.RedirectURL = out.Redirect.URL
	}
	if t := op.RecurringToken; t != nil {
		out.RecurringToken = RecurringToken(t)
	}
	out.Metadata = metadata(op.Metadata)
	for _, r := range op.Refunds {
		ref := codec.OperationRefund{
			ID: r.ID, Status: freeText(r.Status), IsChargeback: r.IsChargeback,
			CreatedAt: optTime(r.CreatedAt), FinishedAt: optTimePtr(r.FinishedAt),
		}
		if r.Amount != nil {
			ref.Amount, ref.Currency = &r.Amount.Value, optString(r.Amount.Currency)
		}
		if r.TransactionInfo != nil {
			ref.RRN, ref.AuthCode = optString(r.TransactionInfo.RRN), optString(r.TransactionInfo.AuthCode)
		}
		out.Refunds = append(out.Refunds, ref)
	}
	return out
}

// redirect keeps everything a notification service needs to send the
// customer on (method, base URL, query and form parameters), with any card
// data in it masked (freeText).
func redirect(r *payapi.Redirect) *codec.Redirect {
	return &codec.Redirect{
		URL:     optString(freeText(r.URL)),
		BaseURL: optString(freeText(r.BaseURL)),
		Method:  optString(strings.ToUpper(freeText(r.Method))),
		QS:      maskedMap(r.QS),
		Params:  maskedMap(r.Params),
	}
}

// RecurringToken returns the outcome form of a recurring token, from an
// operation or from a recurrent/disable answer.
func RecurringToken(t *payapi.RecurringToken) *codec.RecurringToken {
	return &codec.RecurringToken{Token: t.Token, IsActive: t.IsActive, CreatedAt: optTime(t.CreatedAt), FinishedAt: optTimePtr(t.FinishedAt)}
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

func optTimePtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	return optTime(*t)
}
