package config

import (
	"fmt"
	"net"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paysession/paysession/internal/fields"
)

// confirmDeadline is the spec's limit for session/confirm; the reconciler
// must not give up on a session before it.
const confirmDeadline = 240 * time.Minute

// minHeaderBytes is the least header limit of the webhook port: a
// signature of an 8192-bit key alone is 1368 bytes.
const minHeaderBytes = 4096

// problems collects one error per bad variable, and the warnings of those
// accepted with a risk; names are given without Prefix.
type problems struct {
	skip  map[string]bool // full names that already failed to decode
	errs  fields.Errors
	warns []string
	// allowReadableSecrets is PAYSESSION_ALLOW_READABLE_SECRETS.
	allowReadableSecrets bool
}

// add records a problem of variable Prefix+name, unless that variable
// already failed to decode.
func (p *problems) add(name, format string, args ...any) {
	if p.skip[Prefix+name] {
		return
	}
	p.errs.Add(Prefix+name, format, args...)
}

// warn records a warning about variable Prefix+name.
func (p *problems) warn(name, format string, args ...any) {
	p.warns = append(p.warns, Prefix+name+": "+fmt.Sprintf(format, args...))
}

func (p *problems) required(name, v string) bool {
	if strings.TrimSpace(v) == "" {
		p.add(name, "required")
		return false
	}
	return true
}

func (p *problems) positive(name string, d time.Duration) {
	if d <= 0 {
		p.add(name, "must be greater than 0, got %s", d)
	}
}

func (p *problems) notNegative(name string, d time.Duration) {
	if d < 0 {
		p.add(name, "must not be negative, got %s", d)
	}
}

// file checks that path names a readable file and returns its FileInfo,
// nil when it does not.
func (p *problems) file(name, path string) os.FileInfo {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		p.add(name, "cannot read %s: %v", path, unwrapPath(err))
	case st.IsDir():
		p.add(name, "%s is a directory, want a file", path)
	default:
		return st
	}
	return nil
}

func (p *problems) listenAddr(name, addr string) {
	if _, port, err := net.SplitHostPort(addr); err != nil || !validPort(port) {
		p.add(name, "must be host:port or :port, got %q", addr)
	}
}

func validPort(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0 && n <= 65535
}

// validate checks every value that decoded; skip holds those that did not.
func (c *Config) validate(skip map[string]bool) []error {
	p := &problems{skip: skip, allowReadableSecrets: c.AllowReadableSecrets}
	c.validateAPI(p)
	c.validateKafka(p)
	c.validateTopics(p)
	c.validateRegistry(p)
	c.validatePipeline(p)
	c.validateEndpoints(p)
	c.validatePolicies(p)
	if !logLevel(c.Log.Level) {
		p.add("LOG_LEVEL", "must be debug, info, warn or error, got %q", c.Log.Level)
	}
	if !slices.Contains([]string{"json", "text"}, c.Log.Format) {
		p.add("LOG_FORMAT", "must be json or text, got %q", c.Log.Format)
	}
	p.positive("SHUTDOWN_GRACE", c.ShutdownGrace)
	c.validateSecretFiles(p)
	c.warnings = p.warns
	return p.errs.List()
}

func (c *Config) validateAPI(p *problems) {
	a := c.API
	if p.required("API_BASE_URL", a.BaseURL) {
		if u := p.httpURL("API_BASE_URL", a.BaseURL); u != nil {
			if strings.Contains(u.Path, "/api/v") {
				p.add("API_BASE_URL", "must not include /api/vN (set PAYSESSION_API_VERSION), got %q", RedactURL(a.BaseURL))
			}
			if u.Scheme == "http" && !loopback(u.Hostname()) && !a.AllowInsecureHTTP {
				p.add("API_BASE_URL", "plain http:// to %s would send signed requests unencrypted; use https://, "+
					"or set PAYSESSION_API_ALLOW_INSECURE_HTTP=true to accept the risk", u.Hostname())
			}
		}
	}
	if a.Version != 1 && a.Version != 2 {
		p.add("API_VERSION", "must be 1 or 2, got %q", strconv.Itoa(a.Version))
	}
	p.required("API_PROJECT", a.Project)
	if p.required("API_PRIVATE_KEY_FILE", a.PrivateKeyFile) {
		p.secretFile("API_PRIVATE_KEY_FILE", a.PrivateKeyFile)
	}
	c.validateExtraProjects(p)
	if !signaturePadding(a.SignaturePadding) {
		p.add("API_SIGNATURE_PADDING", "must be pkcs1v15 or pss, got %q", a.SignaturePadding)
	}
	if c.Webhook.Enabled && len(a.ServicePublicKeys) == 0 {
		p.add("API_SERVICE_PUBLIC_KEY_FILES", "required when PAYSESSION_WEBHOOK_ENABLED is true")
	}
	for _, f := range a.ServicePublicKeys {
		p.file("API_SERVICE_PUBLIC_KEY_FILES", strings.TrimSpace(f))
	}
	p.positive("API_REQUEST_TIMEOUT", a.RequestTimeout)
	if a.RateLimit < 0 {
		p.add("API_RATE_LIMIT", "must not be negative, got %v", a.RateLimit)
	}
	r := a.Retry
	if r.MaxAttempts < 1 {
		p.add("API_RETRY_MAX_ATTEMPTS", "must be at least 1, got %d", r.MaxAttempts)
	}
	p.positive("API_RETRY_MAX_ELAPSED", r.MaxElapsed)
	p.positive("API_RETRY_BACKOFF_BASE", r.BackoffBase)
	if r.BackoffMax < r.BackoffBase {
		p.add("API_RETRY_BACKOFF_MAX", "must be at least PAYSESSION_API_RETRY_BACKOFF_BASE (%s), got %s", r.BackoffBase, r.BackoffMax)
	}
}

func (c *Config) validateKafka(p *problems) {
	k := c.Kafka
	if len(k.Brokers) == 0 {
		p.add("KAFKA_BROKERS", "required")
	}
	var remote []string // brokers past the loopback interface
	for _, b := range k.Brokers {
		b = strings.TrimSpace(b)
		h, port, err := net.SplitHostPort(b)
		switch {
		case err != nil || h == "" || !validPort(port):
			p.add("KAFKA_BROKERS", "must be host:port, got %q", RedactURL(b))
		case !loopback(h):
			remote = append(remote, RedactURL(b))
		}
	}
	switch {
	case len(remote) == 0 || k.TLS.Enabled:
	case k.AllowPlaintext:
		p.warn("KAFKA_TLS_ENABLED", "false with brokers %s that are not loopback: commands and outcomes cross the network unencrypted "+
			"(accepted by PAYSESSION_KAFKA_ALLOW_PLAINTEXT)", strings.Join(remote, ", "))
	default:
		p.add("KAFKA_TLS_ENABLED", "false, but brokers %s are not loopback: commands, which carry card numbers and security codes, "+
			"and every outcome would cross the network unencrypted; set PAYSESSION_KAFKA_TLS_ENABLED=true, "+
			"or set PAYSESSION_KAFKA_ALLOW_PLAINTEXT=true to accept the risk", strings.Join(remote, ", "))
	}
	p.required("KAFKA_CLIENT_ID", k.ClientID)
	p.required("KAFKA_GROUP_ID", k.GroupID)
	p.required("KAFKA_TRANSACTIONAL_ID_PREFIX", k.TransactionalIDPrefix)
	if k.StaticMembership && k.InstanceID == "" {
		p.add("KAFKA_INSTANCE_ID", "required with PAYSESSION_KAFKA_STATIC_MEMBERSHIP: the host name may change across restarts, and a member that rejoins under another id leaves its old partitions waiting for the session timeout")
	}
	if k.SessionTimeout <= HeartbeatInterval {
		p.add("KAFKA_SESSION_TIMEOUT", "must be longer than the %s heartbeat interval, got %s", HeartbeatInterval, k.SessionTimeout)
	}
	for _, nf := range []struct {
		name, path string
		secret     bool
	}{{"KAFKA_TLS_CA_FILE", k.TLS.CAFile, false}, {"KAFKA_TLS_CERT_FILE", k.TLS.CertFile, false}, {"KAFKA_TLS_KEY_FILE", k.TLS.KeyFile, true}} {
		if nf.path == "" {
			continue
		}
		if !k.TLS.Enabled {
			p.add(nf.name, "set but PAYSESSION_KAFKA_TLS_ENABLED is false")
		}
		if nf.secret {
			p.secretFile(nf.name, nf.path)
		} else {
			p.file(nf.name, nf.path)
		}
	}
	if (k.TLS.CertFile == "") != (k.TLS.KeyFile == "") {
		p.add("KAFKA_TLS_CERT_FILE", "PAYSESSION_KAFKA_TLS_CERT_FILE and PAYSESSION_KAFKA_TLS_KEY_FILE must be set together")
	}
	if k.TLS.InsecureSkipVerify && !k.TLS.Enabled {
		p.add("KAFKA_TLS_INSECURE_SKIP_VERIFY", "set but PAYSESSION_KAFKA_TLS_ENABLED is false")
	}
	c.validateSASL(p)
}

func (c *Config) validateSASL(p *problems) {
	s := c.Kafka.SASL
	mechanism := strings.ToUpper(s.Mechanism)
	if s.TokenFile != "" && mechanism != "OAUTHBEARER" {
		p.add("KAFKA_SASL_TOKEN_FILE", "set but PAYSESSION_KAFKA_SASL_MECHANISM is %q, not OAUTHBEARER", s.Mechanism)
	}
	switch mechanism {
	case "":
		if s.Username != "" || s.Password.IsSet() {
			p.add("KAFKA_SASL_MECHANISM", "required when a SASL username or password is set")
		}
	case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
		if mechanism == "PLAIN" && !c.Kafka.TLS.Enabled && !c.Kafka.AllowInsecureSASL {
			p.add("KAFKA_SASL_MECHANISM", "PLAIN without TLS sends the password in clear; set PAYSESSION_KAFKA_TLS_ENABLED=true, "+
				"use SCRAM-SHA-256/512, or set PAYSESSION_KAFKA_ALLOW_INSECURE_SASL=true to accept the risk")
		}
		p.required("KAFKA_SASL_USERNAME", s.Username)
		if !s.Password.IsSet() {
			p.add("KAFKA_SASL_PASSWORD", "required with SASL (or PAYSESSION_KAFKA_SASL_PASSWORD_FILE)")
		}
	case "OAUTHBEARER":
		if !c.Kafka.TLS.Enabled && !c.Kafka.AllowInsecureSASL {
			p.add("KAFKA_SASL_MECHANISM", "OAUTHBEARER without TLS sends the bearer token in clear; set PAYSESSION_KAFKA_TLS_ENABLED=true, "+
				"or set PAYSESSION_KAFKA_ALLOW_INSECURE_SASL=true to accept the risk")
		}
		if p.required("KAFKA_SASL_TOKEN_FILE", s.TokenFile) {
			p.secretFile("KAFKA_SASL_TOKEN_FILE", s.TokenFile)
		}
		if s.Username != "" || s.Password.IsSet() {
			p.add("KAFKA_SASL_USERNAME", "PAYSESSION_KAFKA_SASL_USERNAME and PASSWORD are not used with OAUTHBEARER (the token names the principal)")
		}
	default:
		p.add("KAFKA_SASL_MECHANISM", "must be PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER, got %q", s.Mechanism)
	}
}

var topicName = regexp.MustCompile(`^[a-zA-Z0-9._-]{1,249}$`)

func (c *Config) validateTopics(p *problems) {
	used := map[string]string{}
	walk(reflect.ValueOf(&c.Topics).Elem(), Prefix+"TOPIC_", func(name string, _ reflect.StructField, fv reflect.Value) {
		short := strings.TrimPrefix(name, Prefix)
		t := fv.String()
		if !topicName.MatchString(t) || t == "." || t == ".." {
			p.add(short, "must be a Kafka topic name (1-249 of a-z A-Z 0-9 . _ -), got %q", t)
			return
		}
		if other, dup := used[t]; dup {
			p.add(short, "topic %q is also %s; every topic must be distinct", t, other)
		}
		used[t] = name
	})
}

func (c *Config) validateRegistry(p *problems) {
	r := c.Registry
	credentials := r.Username != "" || r.Password.IsSet() || r.Token.IsSet()
	if r.URL != "" {
		u := p.httpURL("REGISTRY_URL", r.URL)
		if u != nil && u.Scheme == "http" && credentials && !loopback(u.Hostname()) && !r.AllowInsecureHTTP {
			what := "password"
			if r.Token.IsSet() {
				what = "bearer token"
			}
			p.add("REGISTRY_URL", "plain http:// to %s would send the registry %s in clear; use https://, "+
				"or set PAYSESSION_REGISTRY_ALLOW_INSECURE_HTTP=true to accept the risk", u.Hostname(), what)
		}
		if u != nil && u.Scheme == "http" && r.CAFile != "" {
			p.add("REGISTRY_CA_FILE", "set but PAYSESSION_REGISTRY_URL is plain http://")
		}
	} else {
		if credentials {
			p.add("REGISTRY_URL", "required when registry credentials are set")
		}
		if r.LookupOnly {
			p.add("REGISTRY_LOOKUP_ONLY", "set but PAYSESSION_REGISTRY_URL is empty (without a registry no schema is registered anyway)")
		}
	}
	if r.CAFile != "" {
		p.file("REGISTRY_CA_FILE", r.CAFile)
	}
	if (r.Username == "") != !r.Password.IsSet() && !p.skip[Prefix+"REGISTRY_PASSWORD"] {
		p.add("REGISTRY_USERNAME", "PAYSESSION_REGISTRY_USERNAME and PAYSESSION_REGISTRY_PASSWORD must be set together")
	}
	if r.Token.IsSet() && (r.Username != "" || r.Password.IsSet()) {
		p.add("REGISTRY_TOKEN", "set together with PAYSESSION_REGISTRY_USERNAME/PASSWORD: choose bearer or basic auth")
	}
}

func (c *Config) validatePipeline(p *problems) {
	pl := c.Pipeline
	if pl.MaxInFlight < 1 {
		p.add("PIPELINE_MAX_IN_FLIGHT", "must be at least 1, got %d", pl.MaxInFlight)
	}
	if pl.MaxPerSession < 1 {
		p.add("PIPELINE_MAX_PER_SESSION", "must be at least 1, got %d", pl.MaxPerSession)
	}
	p.positive("PIPELINE_BATCH_DEADLINE", pl.BatchDeadline)
	if pl.TransactionTimeout < 2*pl.BatchDeadline {
		p.add("PIPELINE_TRANSACTION_TIMEOUT", "must be at least twice PAYSESSION_PIPELINE_BATCH_DEADLINE (%s), got %s", pl.BatchDeadline, pl.TransactionTimeout)
	}
	if pl.KeyLifetimeMargin <= 0 || pl.KeyLifetimeMargin >= 24*time.Hour {
		p.add("PIPELINE_KEY_LIFETIME_MARGIN", "must be between 0 and 24h (the service keeps keys 24h), got %s", pl.KeyLifetimeMargin)
	}
}

func (c *Config) validateEndpoints(p *problems) {
	w := c.Webhook
	p.listenAddr("METRICS_LISTEN_ADDR", c.Metrics.ListenAddr)
	if !w.Enabled {
		return
	}
	p.listenAddr("WEBHOOK_LISTEN_ADDR", w.ListenAddr)
	if w.ListenAddr == c.Metrics.ListenAddr {
		p.add("WEBHOOK_LISTEN_ADDR", "must differ from PAYSESSION_METRICS_LISTEN_ADDR (%s)", w.ListenAddr)
	}
	if !strings.HasPrefix(w.Path, "/") {
		p.add("WEBHOOK_PATH", "must start with /, got %q", w.Path)
	}
	if w.MaxBodyBytes <= 0 {
		p.add("WEBHOOK_MAX_BODY_BYTES", "must be greater than 0, got %d", w.MaxBodyBytes)
	}
	if w.MaxInFlight < 1 {
		p.add("WEBHOOK_MAX_IN_FLIGHT", "must be at least 1, got %d", w.MaxInFlight)
	}
	if w.MaxConnections < 1 {
		p.add("WEBHOOK_MAX_CONNECTIONS", "must be at least 1, got %d", w.MaxConnections)
	}
	if w.MaxHeaderBytes < minHeaderBytes {
		p.add("WEBHOOK_MAX_HEADER_BYTES", "must be at least %d, got %d", minHeaderBytes, w.MaxHeaderBytes)
	}
	p.positive("WEBHOOK_READ_HEADER_TIMEOUT", w.ReadHeaderTimeout)
	p.positive("WEBHOOK_IDLE_TIMEOUT", w.IdleTimeout)
	if w.ReadTimeout < w.ReadHeaderTimeout {
		p.add("WEBHOOK_READ_TIMEOUT", "must be at least PAYSESSION_WEBHOOK_READ_HEADER_TIMEOUT (%s), got %s", w.ReadHeaderTimeout, w.ReadTimeout)
	}
	p.positive("WEBHOOK_BODY_TIMEOUT", w.BodyTimeout)
	if w.BodyTimeout > w.ReadTimeout {
		p.add("WEBHOOK_BODY_TIMEOUT", "must be at most PAYSESSION_WEBHOOK_READ_TIMEOUT (%s), got %s", w.ReadTimeout, w.BodyTimeout)
	}
	p.positive("WEBHOOK_DEDUP_TTL", w.DedupTTL)
	if w.DedupMax < 1 {
		p.add("WEBHOOK_DEDUP_MAX_ENTRIES", "must be at least 1, got %d", w.DedupMax)
	}
}

func (c *Config) validatePolicies(p *problems) {
	p.notNegative("SESSIONS_COMMIT_INTERVAL", c.Sessions.CommitInterval)
	p.notNegative("RECONCILER_INTERVAL", c.Reconciler.Interval)
	p.positive("RECONCILER_QUIET_AFTER", c.Reconciler.QuietAfter)
	if c.Reconciler.MaxAge <= confirmDeadline {
		p.add("RECONCILER_MAX_AGE", "must be longer than the service's %s confirmation deadline, got %s", confirmDeadline, c.Reconciler.MaxAge)
	}
	if h := c.Sessions.Horizon; h <= c.Reconciler.MaxAge || h <= c.Webhook.DedupTTL {
		p.add("SESSIONS_HORIZON", "must be longer than PAYSESSION_RECONCILER_MAX_AGE (%s) and PAYSESSION_WEBHOOK_DEDUP_TTL (%s), got %s",
			c.Reconciler.MaxAge, c.Webhook.DedupTTL, h)
	}
	cf := c.Confirm
	switch cf.Policy {
	case "manual":
		if len(cf.Kinds) > 0 || cf.MaxAmount != 0 {
			p.add("CONFIRM_POLICY", "PAYSESSION_CONFIRM_KINDS and PAYSESSION_CONFIRM_MAX_AMOUNT apply only to policy auto")
		}
	case "auto":
		if len(cf.Kinds) == 0 {
			p.add("CONFIRM_KINDS", "required with policy auto (payout, payment)")
		}
		for _, k := range cf.Kinds {
			if k != "payout" && k != "payment" {
				p.add("CONFIRM_KINDS", "must list payout and/or payment, got %q", k)
			}
		}
		if cf.MaxAmount <= 0 {
			p.add("CONFIRM_MAX_AMOUNT", "must be greater than 0 with policy auto, got %d", cf.MaxAmount)
		}
	default:
		p.add("CONFIRM_POLICY", "must be manual or auto, got %q", cf.Policy)
	}
	for _, nd := range []struct {
		name string
		d    time.Duration
	}{
		{"PUBLISH_WALLET_BALANCE_INTERVAL", c.Publish.WalletBalanceInterval},
		{"PUBLISH_FPS_BANKS_INTERVAL", c.Publish.FPSBanksInterval},
	} {
		name, d := nd.name, nd.d
		p.notNegative(name, d)
		if d > 0 && c.API.Version == 2 {
			p.add(name, "needs API version 1 (the endpoint exists only in v1)")
		}
	}
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// logLevel reports whether s names a log level: debug, info, warn (or
// warning) or error, in any case. The logger reads the same spellings
// (logging.ParseLevel); a test keeps the two in step.
func logLevel(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug", "info", "", "warn", "warning", "error":
		return true
	}
	return false
}

// signaturePadding reports whether s names an RSA signature padding:
// pkcs1v15 (also pkcs1, PKCS1v15 or empty) or pss (PSS). The signer reads
// the same spellings (signing.ParsePadding); a test keeps the two in step.
func signaturePadding(s string) bool {
	switch s {
	case "", "pkcs1v15", "pkcs1", "PKCS1v15", "pss", "PSS":
		return true
	}
	return false
}
