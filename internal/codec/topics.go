package codec

import "github.com/paysession/paysession/schemas"

// OutcomeTopics names the topic of each kind of outcome record.
type OutcomeTopics struct {
	CommandResults string
	Sessions       string
	SessionUpdates string
	WebhookEvents  string
	DeadLetter     string
	WalletBalances string
	FPSBanks       string
}

// Schemas maps each outcome topic to the schema of its values, as
// EncoderConfig.Topics wants them: command results, sessions and session
// updates (both session states), webhook events, dead letters, wallet
// balances and FPS banks.
func (t OutcomeTopics) Schemas() map[string]schemas.Name {
	return map[string]schemas.Name{
		t.CommandResults: schemas.CommandResult, t.Sessions: schemas.SessionState,
		t.SessionUpdates: schemas.SessionState, t.WebhookEvents: schemas.WebhookEvent,
		t.DeadLetter: schemas.DeadLetter, t.WalletBalances: schemas.WalletBalance, t.FPSBanks: schemas.FPSBanks,
	}
}
