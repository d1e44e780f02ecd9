package config

// Topics names every Kafka topic of the connector: one per command kind, the
// retry topic and the outcome topics. Defaults follow the team contract.
type Topics struct {
	InitPayout       string `env:"INIT_PAYOUT, default=payments.commands.init-payout" desc:"init_payout commands"`
	InitPayment      string `env:"INIT_PAYMENT, default=payments.commands.init-payment" desc:"init_payment commands"`
	CreateSession    string `env:"CREATE_SESSION, default=payments.commands.create-session" desc:"create_session commands"`
	StartPayout      string `env:"START_PAYOUT, default=payments.commands.start-payout" desc:"start_payout commands"`
	StartPayment     string `env:"START_PAYMENT, default=payments.commands.start-payment" desc:"start_payment commands"`
	Capture          string `env:"CAPTURE, default=payments.commands.capture" desc:"capture commands"`
	Refund           string `env:"REFUND, default=payments.commands.refund" desc:"refund commands"`
	Confirm          string `env:"CONFIRM, default=payments.commands.confirm" desc:"confirm commands"`
	Cancel           string `env:"CANCEL, default=payments.commands.cancel" desc:"cancel commands"`
	DisableRecurring string `env:"DISABLE_RECURRING, default=payments.commands.disable-recurring" desc:"disable_recurring commands"`
	FPSVerification  string `env:"FPS_VERIFICATION, default=payments.commands.fps-verification" desc:"fps_verification commands"`
	StatusRefresh    string `env:"STATUS_REFRESH, default=payments.commands.status-refresh" desc:"status_refresh commands"`
	BankPayPush      string `env:"BANKPAY_PUSH, default=payments.commands.bankpay-push" desc:"bankpay_push commands"`

	Retry          string `env:"RETRY, default=payments.commands.retry" desc:"commands still retrying at a batch deadline"`
	Attempts       string `env:"ATTEMPTS, default=payments.commands.attempts" desc:"attempt marks proving a command was never sent (compacted)"`
	CommandResults string `env:"COMMAND_RESULTS, default=payments.command-results" desc:"one result per command (key idempotency key)"`
	Sessions       string `env:"SESSIONS, default=payments.sessions" desc:"session states (key session id, compacted); written only by the session writer, from SESSION_UPDATES"`
	SessionUpdates string `env:"SESSION_UPDATES, default=payments.sessions.updates" desc:"internal: candidate session states and verified webhooks (key session id) from which the session writer derives SESSIONS and WEBHOOK_EVENTS; same partition count as both"`
	WebhookEvents  string `env:"WEBHOOK_EVENTS, default=payments.webhook-events" desc:"verified webhooks, each event id once (key session id)"`
	DeadLetter     string `env:"DEAD_LETTER, default=payments.dead-letter" desc:"undecodable or invalid command records"`
	WalletBalances string `env:"WALLET_BALANCES, default=payments.wallet-balances" desc:"periodic wallet balances"`
	FPSBanks       string `env:"FPS_BANKS, default=payments.fps-banks" desc:"periodic FPS bank list"`
	Control        string `env:"CONTROL, default=payments.control" desc:"operators' pause and resume per command kind (key command kind, compacted); written by connector pause and resume, read by every replica"`
}

// Commands returns the command topic of each command kind, keyed by the kind's
// name (init_payout, capture, ...; the codec.CommandKind spellings).
func (t Topics) Commands() map[string]string {
	return map[string]string{
		"init_payout":       t.InitPayout,
		"init_payment":      t.InitPayment,
		"create_session":    t.CreateSession,
		"start_payout":      t.StartPayout,
		"start_payment":     t.StartPayment,
		"capture":           t.Capture,
		"refund":            t.Refund,
		"confirm":           t.Confirm,
		"cancel":            t.Cancel,
		"disable_recurring": t.DisableRecurring,
		"fps_verification":  t.FPSVerification,
		"status_refresh":    t.StatusRefresh,
		"bankpay_push":      t.BankPayPush,
	}
}
