package kit

import "github.com/paysession/paysession/internal/codec"

// Topics names the connector's topics. The connector's names are
// configurable (PAYSESSION_TOPIC_*); DefaultTopics returns the defaults.
type Topics struct {
	// Commands is the command topic of each kind.
	Commands map[CommandKind]string
	// Retry holds commands still retrying at a batch deadline (connector-internal).
	Retry string
	// Attempts holds attempt marks (connector-internal, compacted).
	Attempts string
	// CommandResults holds one CommandResult per command, key = idempotency key.
	CommandResults string
	// Sessions holds SessionState records, key = session id, compacted.
	Sessions string
	// SessionUpdates holds candidate session states (connector-internal:
	// read only by the connector's session writer), key = session id.
	SessionUpdates string
	// WebhookEvents holds WebhookEvent records, key = session id.
	WebhookEvents string
	// DeadLetter holds DeadLetter records, key = the command's key.
	DeadLetter string
	// WalletBalances holds WalletBalance records, key = wallet id.
	WalletBalances string
	// FPSBanks holds FPSBanks records, key = "fps-banks".
	FPSBanks string
}

// DefaultTopics returns the connector's default topic names: the defaults
// of its PAYSESSION_TOPIC_* variables (TestDefaultTopicsAreTheConfigDefaults
// holds them equal), written here so that the kit does not build the
// connector's configuration into its users.
func DefaultTopics() Topics {
	t := Topics{Commands: map[CommandKind]string{},
		Retry: "payments.commands.retry", Attempts: "payments.commands.attempts",
		CommandResults: "payments.command-results", Sessions: "payments.sessions",
		SessionUpdates: "payments.sessions.updates", WebhookEvents: "payments.webhook-events",
		DeadLetter: "payments.dead-letter", WalletBalances: "payments.wallet-balances", FPSBanks: "payments.fps-banks"}
	for _, k := range codec.Kinds() {
		t.Commands[k] = k.DefaultTopic()
	}
	return t
}

// CommandTopic returns the command topic of kind.
func (t Topics) CommandTopic(kind CommandKind) string { return t.Commands[kind] }

// Outcomes returns each topic that carries Avro outcome records with the
// schema of its values: command results, sessions, session updates,
// webhook events, dead letters, wallet balances and FPS banks.
func (t Topics) Outcomes() map[string]SchemaName {
	return codec.OutcomeTopics{CommandResults: t.CommandResults, Sessions: t.Sessions, SessionUpdates: t.SessionUpdates,
		WebhookEvents: t.WebhookEvents, DeadLetter: t.DeadLetter, WalletBalances: t.WalletBalances, FPSBanks: t.FPSBanks}.Schemas()
}

// Schema returns the value schema of topic: an outcome schema, or the
// command schema of a command topic.
func (t Topics) Schema(topic string) (SchemaName, bool) {
	if n, ok := t.Outcomes()[topic]; ok && topic != "" {
		return n, true
	}
	for k, ct := range t.Commands {
		if ct == topic {
			return k.SchemaName(), true
		}
	}
	return "", false
}
