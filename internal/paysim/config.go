package paysim

import (
	"crypto/rsa"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/paysession/paysession/internal/signing"
)

// Defaults of Config and Project.
const (
	DefaultProcessingDelay   = 5 * time.Millisecond
	DefaultConfirmAbove      = 1_000_000 // minor units: 10,000.00
	DefaultWalletBalance     = 100_000_000_000
	DefaultMaxBodyBytes      = 1 << 20
	DefaultWebhookTimeout    = 5 * time.Second
	DefaultWebhookRetryFirst = 30 * time.Second
	DefaultMaxLogEntries     = 100_000
	// IdempotencyTTL is the spec's key lifetime.
	IdempotencyTTL = 24 * time.Hour
	// ActionTimeout cancels an operation waiting for a customer action.
	ActionTimeout = 60 * time.Minute
	// ConfirmTimeout cancels an operation waiting for session/confirm.
	ConfirmTimeout = 240 * time.Minute
	// PublicTokenTTL is how long a public token is valid.
	PublicTokenTTL = 24 * time.Hour
	// WebhookMaxInterval is the longest pause between two webhook attempts.
	WebhookMaxInterval = 15 * time.Minute
	// WebhookGiveUp stops resending this long after the first attempt.
	WebhookGiveUp = 30 * time.Minute
)

// Config configures a Server. Zero values take the documented defaults.
type Config struct {
	// Clock drives every lifetime and timeout; nil means wall time.
	// Server.Advance moves the sandbox's time forward with either.
	Clock Clock
	// Projects are the partner projects allowed to call the API.
	Projects []Project
	// ServiceKey signs webhooks (SHA-256, Base64, X-PARTNER-SIGN). Required.
	ServiceKey *rsa.PrivateKey
	// ServicePadding is the RSA scheme of webhook signatures (default PKCS1v15).
	ServicePadding signing.Padding
	// Logger receives one line per notable event; nil discards.
	Logger *slog.Logger
	// ProcessingDelay is the wall-time pause before asynchronous processing
	// ("service completes") runs, so webhooks follow the API response.
	// Default 5ms; negative is invalid.
	ProcessingDelay time.Duration
	// PublicURL is the base of 3-D Secure redirect URLs; empty means the
	// request's own scheme and host.
	PublicURL string
	// MaxBodyBytes limits request bodies (default 1 MiB; larger: HTTP 413).
	MaxBodyBytes int64
	// WebhookClient sends webhooks; nil means a client with WebhookTimeout.
	WebhookClient *http.Client
	// WebhookTimeout bounds one webhook attempt (default 5s).
	WebhookTimeout time.Duration
	// WebhookRetryFirst is the first pause between webhook attempts (default
	// 30s); each next pause doubles, capped at WebhookMaxInterval.
	WebhookRetryFirst time.Duration
	// Faults are the initial fault knobs (see SetFaults).
	Faults Faults
	// Seed makes fault draws and generated tokens reproducible.
	Seed uint64
	// MaxLogEntries caps the ledger, execution and webhook logs (default 100,000).
	MaxLogEntries int
	// MaxSessions caps the sessions held; the oldest settled ones are
	// forgotten first (default DefaultMaxSessions).
	MaxSessions int
}

// Project is a partner project as the operator registered it.
type Project struct {
	// ID is the X-PARTNER-PROJECT value.
	ID string
	// PublicKeys verify the project's request signatures (any of them: rotation).
	PublicKeys []*rsa.PublicKey
	// Padding is the RSA scheme of the project's signatures (default PKCS1v15).
	Padding signing.Padding
	// WebhookURL receives the project's webhooks; empty sends none.
	WebhookURL string
	// AutoConfirm lets payouts below ConfirmAbove finish without
	// ready_to_confirm. DevProject sets it; the zero value is false.
	AutoConfirm bool
	// ConfirmAbove: payouts of at least this amount wait for session/confirm
	// even with AutoConfirm (0 means DefaultConfirmAbove).
	ConfirmAbove int64
	// TokenizeEnabled allows tokenize/elements (the operator enables it);
	// otherwise the call gets HTTP 403 code forbidden.
	TokenizeEnabled bool
	// RequireSender makes participant_details.sender first_name, last_name
	// and ipv4 mandatory for payments (countries with the rule).
	RequireSender bool
	// WalletBalance is the opening balance of each currency's wallet
	// (0 means DefaultWalletBalance).
	WalletBalance int64
}

// DevProject returns a project with the development defaults: auto-confirm
// on, confirm threshold 1,000,000 minor units, tokenization enabled.
func DevProject(id string, key *rsa.PublicKey, webhookURL string) Project {
	return Project{
		ID: id, PublicKeys: []*rsa.PublicKey{key}, WebhookURL: webhookURL,
		AutoConfirm: true, ConfirmAbove: DefaultConfirmAbove, TokenizeEnabled: true,
	}
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	var errs []error
	if c.ServiceKey == nil {
		errs = append(errs, errors.New("ServiceKey: required (signs webhooks)"))
	}
	if len(c.Projects) == 0 {
		errs = append(errs, errors.New("Projects: at least one project required"))
	}
	seen := map[string]bool{}
	for i, p := range c.Projects {
		errs = append(errs, p.validate(fmt.Sprintf("Projects[%d]", i), seen)...)
	}
	if c.ProcessingDelay < 0 {
		errs = append(errs, errors.New("ProcessingDelay: must not be negative"))
	}
	if c.MaxBodyBytes < 0 {
		errs = append(errs, errors.New("MaxBodyBytes: must not be negative"))
	}
	if c.WebhookTimeout < 0 || c.WebhookRetryFirst < 0 {
		errs = append(errs, errors.New("WebhookTimeout, WebhookRetryFirst: must not be negative"))
	}
	if c.PublicURL != "" && !strings.HasPrefix(c.PublicURL, "http") {
		errs = append(errs, errors.New("PublicURL: must be an http(s) URL"))
	}
	if err := c.Faults.validate(); err != nil {
		errs = append(errs, fmt.Errorf("Faults: %w", err))
	}
	return errors.Join(errs...)
}

func (p Project) validate(name string, seen map[string]bool) []error {
	var errs []error
	switch {
	case p.ID == "":
		errs = append(errs, fmt.Errorf("%s.ID: required", name))
	case seen[p.ID]:
		errs = append(errs, fmt.Errorf("%s.ID: duplicate %q", name, p.ID))
	}
	seen[p.ID] = true
	if len(p.PublicKeys) == 0 {
		errs = append(errs, fmt.Errorf("%s.PublicKeys: at least one key required", name))
	}
	for _, k := range p.PublicKeys {
		if k == nil {
			errs = append(errs, fmt.Errorf("%s.PublicKeys: nil key", name))
		}
	}
	if p.WebhookURL != "" && !strings.HasPrefix(p.WebhookURL, "http") {
		errs = append(errs, fmt.Errorf("%s.WebhookURL: must be an http(s) URL", name))
	}
	if p.ConfirmAbove < 0 || p.WalletBalance < 0 {
		errs = append(errs, fmt.Errorf("%s.ConfirmAbove, WalletBalance: must not be negative", name))
	}
	return errs
}

func (c *Config) applyDefaults() {
	if c.Clock == nil {
		c.Clock = systemClock{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.ProcessingDelay == 0 {
		c.ProcessingDelay = DefaultProcessingDelay
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.WebhookTimeout == 0 {
		c.WebhookTimeout = DefaultWebhookTimeout
	}
	if c.WebhookRetryFirst == 0 {
		c.WebhookRetryFirst = DefaultWebhookRetryFirst
	}
	if c.WebhookClient == nil {
		c.WebhookClient = &http.Client{Timeout: c.WebhookTimeout}
	}
	if c.MaxSessions <= 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	if c.MaxLogEntries == 0 {
		c.MaxLogEntries = DefaultMaxLogEntries
	}
	for i := range c.Projects {
		p := &c.Projects[i]
		if p.ConfirmAbove == 0 {
			p.ConfirmAbove = DefaultConfirmAbove
		}
		if p.WalletBalance == 0 {
			p.WalletBalance = DefaultWalletBalance
		}
	}
}
