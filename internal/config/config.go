package config

import "time"

// Prefix starts the name of every environment variable of the connector.
const Prefix = "PAYSESSION_"

// Config is the connector's whole configuration. Each leaf field names its
// environment variable (Prefix + section prefix + env key) in its tags; the
// desc tag is the one-line meaning printed by Variables and the docs.
type Config struct {
	API        API          `env:", prefix=API_"`
	Kafka      Kafka        `env:", prefix=KAFKA_"`
	Topics     Topics       `env:", prefix=TOPIC_"`
	Registry   Registry     `env:", prefix=REGISTRY_"`
	Pipeline   Pipeline     `env:", prefix=PIPELINE_"`
	Sessions   Sessions     `env:", prefix=SESSIONS_"`
	Webhook    Webhook      `env:", prefix=WEBHOOK_"`
	Metrics    Metrics      `env:", prefix=METRICS_"`
	Reconciler Reconciler   `env:", prefix=RECONCILER_"`
	Confirm    Confirmation `env:", prefix=CONFIRM_"`
	Publish    Publishers   `env:", prefix=PUBLISH_"`
	Log        Log          `env:", prefix=LOG_"`

	ShutdownGrace time.Duration `env:"SHUTDOWN_GRACE, default=30s" desc:"time allowed for a graceful stop after SIGTERM; keep below the pod's terminationGracePeriodSeconds"`

	// AllowReadableSecrets accepts secret files that other users can read.
	AllowReadableSecrets bool `env:"ALLOW_READABLE_SECRETS, default=false" desc:"INSECURE: accept a private key, password or token file that other users may access (mode o+r, o+w or o+x: any of 0007), which is otherwise refused at start; the start then warns instead (tests only). A file only group-readable is accepted, with a warning when the group is not one of this process's (Kubernetes: defaultMode 0440 with the pod's fsGroup)"`

	// set records which variables the environment provided (for Settings).
	set map[string]bool
	// warnings are the problems Load accepted (Warnings).
	warnings []string
}

// API configures calls of the Payment Session Service.
type API struct {
	BaseURL           string        `env:"BASE_URL" desc:"service base URL without /api/vN (required); https://, or http:// only to a loopback host (127.0.0.0/8, ::1, localhost) or with ALLOW_INSECURE_HTTP"`
	AllowInsecureHTTP bool          `env:"ALLOW_INSECURE_HTTP, default=false" desc:"INSECURE: accept a plain http:// BASE_URL to a host that is not loopback; signed requests and answers then cross the network unencrypted (tests only)"`
	Version           int           `env:"VERSION, default=1" desc:"API version, 1 or 2"`
	Project           string        `env:"PROJECT" desc:"partner project id sent as X-PARTNER-PROJECT (required)"`
	Submerchant       string        `env:"SUBMERCHANT" desc:"optional X-PARTNER-SUBMERCHANT"`
	PrivateKeyFile    string        `env:"PRIVATE_KEY_FILE" desc:"path of the PEM RSA private key that signs requests (required)"`
	ExtraProjects     []string      `env:"EXTRA_PROJECTS" desc:"comma-separated further partner projects as id=path of the PEM RSA private key that signs that project's requests; a command names one in its project field (none: API_PROJECT), a command naming an unknown project is invalid; each project's webhooks arrive at PAYSESSION_WEBHOOK_PATH/id, so with the webhook endpoint on an id must not contain / ? # or %"`
	SignaturePadding  string        `env:"SIGNATURE_PADDING, default=pkcs1v15" desc:"RSA signature padding, pkcs1v15 or pss"`
	ServicePublicKeys []string      `env:"SERVICE_PUBLIC_KEY_FILES" desc:"comma-separated PEM files of the service's public keys; a webhook verifying under any of them is accepted (rotation); required when the webhook is enabled"`
	RequestTimeout    time.Duration `env:"REQUEST_TIMEOUT, default=15s" desc:"timeout of one HTTP request"`
	Retry             Retry         `env:", prefix=RETRY_"`
	RateLimit         float64       `env:"RATE_LIMIT, default=0" desc:"client-side limit of requests per second, 0 = off"`
}

// Retry is the retry budget of one command's API call.
type Retry struct {
	MaxAttempts int           `env:"MAX_ATTEMPTS, default=8" desc:"attempts per command before it is indeterminate"`
	MaxElapsed  time.Duration `env:"MAX_ELAPSED, default=5m" desc:"time from first attempt after which a command is indeterminate"`
	BackoffBase time.Duration `env:"BACKOFF_BASE, default=200ms" desc:"first retry delay; doubles per attempt, with jitter"`
	BackoffMax  time.Duration `env:"BACKOFF_MAX, default=10s" desc:"longest retry delay"`
}

// Kafka configures the connection to the Kafka cluster.
type Kafka struct {
	Brokers               []string      `env:"BROKERS" desc:"comma-separated seed brokers host:port (required)"`
	ClientID              string        `env:"CLIENT_ID, default=paysession-connector" desc:"Kafka client id"`
	GroupID               string        `env:"GROUP_ID, default=paysession-connector" desc:"consumer group of the command pipeline"`
	TransactionalIDPrefix string        `env:"TRANSACTIONAL_ID_PREFIX, default=paysession-connector" desc:"prefix of transactional ids; each replica appends its instance id"`
	InstanceID            string        `env:"INSTANCE_ID" desc:"this replica's id, the suffix of its transactional id; default the host name (the pod name). Replicas on one host need distinct ids, and a restarted replica should keep its id so that it fences its previous incarnation at once"`
	StaticMembership      bool          `env:"STATIC_MEMBERSHIP, default=false" desc:"join the consumer groups as a static member (group.instance.id = INSTANCE_ID): a replica restarted within SESSION_TIMEOUT gets its partitions back at once, without a rebalance, and fences its dead predecessor; a replica that does not come back keeps its partitions until SESSION_TIMEOUT. Needs INSTANCE_ID set, stable across restarts and unique per replica (the chart's StatefulSet mode sets both)"`
	SessionTimeout        time.Duration `env:"SESSION_TIMEOUT, default=45s" desc:"consumer-group session timeout: how long the partitions of a replica that died without leaving wait before a rebalance moves them (the broker allows 6s-30m by default)"`
	TLS                   TLS           `env:", prefix=TLS_"`
	SASL                  SASL          `env:", prefix=SASL_"`
	AllowInsecureSASL     bool          `env:"ALLOW_INSECURE_SASL, default=false" desc:"INSECURE: accept SASL PLAIN without TLS, which sends the password in clear on every connection (tests only); SCRAM never sends it and needs no such switch"`
	// AllowPlaintext accepts TLS off to brokers that are not loopback.
	AllowPlaintext bool `env:"ALLOW_PLAINTEXT, default=false" desc:"INSECURE: accept TLS_ENABLED=false with brokers that are not loopback; commands, which carry card numbers and security codes, and every outcome then cross the network unencrypted (tests only, or where the network encrypts the traffic itself, such as a service mesh with mutual TLS); the start warns"`
}

// TLS configures TLS to the brokers.
type TLS struct {
	Enabled            bool   `env:"ENABLED, default=false" desc:"use TLS to the brokers; without it every broker must be loopback (127.0.0.0/8, ::1, localhost) unless PAYSESSION_KAFKA_ALLOW_PLAINTEXT is set"`
	CAFile             string `env:"CA_FILE" desc:"PEM CA bundle; system roots when empty"`
	CertFile           string `env:"CERT_FILE" desc:"PEM client certificate (mutual TLS); needs KEY_FILE"`
	KeyFile            string `env:"KEY_FILE" desc:"PEM client key (mutual TLS); needs CERT_FILE"`
	ServerName         string `env:"SERVER_NAME" desc:"override of the server name checked in broker certificates"`
	InsecureSkipVerify bool   `env:"INSECURE_SKIP_VERIFY, default=false" desc:"skip broker certificate verification (tests only)"`
}

// SASL configures SASL authentication to the brokers.
type SASL struct {
	Mechanism string `env:"MECHANISM" desc:"PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER; empty = no SASL"`
	Username  string `env:"USERNAME" desc:"SASL user name (PLAIN, SCRAM); a value, not a secret: a Strimzi KafkaUser's name"`
	Password  Secret `env:"PASSWORD" desc:"SASL password (or PASSWORD_FILE, e.g. the password key of a Strimzi KafkaUser's secret)"`
	TokenFile string `env:"TOKEN_FILE" desc:"OAUTHBEARER: file holding the bearer token (a JWT), read again at every authentication, so a rotated token is used from the next connection on"`
}

// Registry configures the Confluent-compatible schema registry.
type Registry struct {
	URL      string `env:"URL" desc:"schema registry URL; empty = Avro single-object encoding without a registry"`
	Username string `env:"USERNAME" desc:"registry basic-auth user"`
	Password Secret `env:"PASSWORD" desc:"registry basic-auth password (or PASSWORD_FILE)"`
	Token    Secret `env:"TOKEN" desc:"registry bearer token (or TOKEN_FILE, read again at each request, so a rotated token is used); not with USERNAME/PASSWORD"`
	CAFile   string `env:"CA_FILE" desc:"PEM CA bundle trusted for an https:// registry; system roots when empty"`
	// LookupOnly never registers a schema: for registries that forbid
	// auto-registration.
	LookupOnly bool `env:"LOOKUP_ONLY, default=false" desc:"look every schema up, never register one (registries that forbid auto-registration); the start fails naming each subject or schema version not registered"`
	// AllowInsecureHTTP accepts basic-auth credentials over plain http:// to
	// a host that is not loopback.
	AllowInsecureHTTP bool `env:"ALLOW_INSECURE_HTTP, default=false" desc:"INSECURE: accept registry credentials over a plain http:// URL to a host that is not loopback; the password then crosses the network in clear (tests only)"`
}

// Pipeline configures the command pipeline.
type Pipeline struct {
	MaxInFlight        int           `env:"MAX_IN_FLIGHT, default=256" desc:"API calls in flight at once across all partitions"`
	MaxPerSession      int           `env:"MAX_PER_SESSION, default=8" desc:"commands of one session a batch runs at most; the session's others go through the retry topic, in order, this many a batch, so one session's flood delays the other commands of a batch by at most this many of its calls"`
	BatchDeadline      time.Duration `env:"BATCH_DEADLINE, default=10s" desc:"time a polled batch may run before still-retrying commands move to the retry topic"`
	TransactionTimeout time.Duration `env:"TRANSACTION_TIMEOUT, default=30s" desc:"Kafka transaction timeout; at least twice BATCH_DEADLINE. Keep it below KAFKA_SESSION_TIMEOUT: the partitions of a replica that died with a transaction open move to another replica after the later of the two"`
	KeyLifetimeMargin  time.Duration `env:"KEY_LIFETIME_MARGIN, default=23h" desc:"commands whose record is older are expired, never sent (the service keeps keys 24h)"`
}

// Sessions configures the session writer, the one writer of the sessions
// and webhook-events topics.
type Sessions struct {
	CommitInterval time.Duration `env:"COMMIT_INTERVAL, default=100ms" desc:"least time between two transactions of the session writer: the session updates arriving meanwhile share one transaction, so the broker runs at most one writer transaction per interval instead of one per update, and the sessions and webhook-events topics trail by up to this; 0 = a transaction per poll"`
	Horizon        time.Duration `env:"HORIZON, default=168h" desc:"how long a session is remembered after its last state was written: the session writer and the reconciler keep, and read at a takeover or start, only the sessions topic's records of the horizon (plus 1h for clock differences), so memory and takeover time follow recent traffic, not history. A state of a session no longer remembered is written when its updated_at is within the horizon (a chargeback weeks later) and dropped as stale when older. Must exceed RECONCILER_MAX_AGE and WEBHOOK_DEDUP_TTL"`
}

// Webhook configures the webhook HTTP ingress.
type Webhook struct {
	Enabled           bool          `env:"ENABLED, default=true" desc:"serve the webhook endpoint"`
	ListenAddr        string        `env:"LISTEN_ADDR, default=:8080" desc:"listen address of the webhook endpoint"`
	Path              string        `env:"PATH, default=/webhooks/paysession" desc:"URL path of the webhooks of PAYSESSION_API_PROJECT (also served at this path/that project id); each project of PAYSESSION_API_EXTRA_PROJECTS has its own, this path/project id, to configure as that project's webhook URL at the service (a webhook names no project)"`
	MaxBodyBytes      int64         `env:"MAX_BODY_BYTES, default=65536" desc:"largest accepted webhook body (real ones are a few KB); larger gets 413. MAX_CONNECTIONS x this bounds the memory of webhook bodies (64 MiB by default)"`
	MaxInFlight       int           `env:"MAX_IN_FLIGHT, default=128" desc:"verified webhooks published at once; more wait up to 1s for a slot, then get 503 with Retry-After. Only a body whose signature verified takes a slot"`
	MaxConnections    int           `env:"MAX_CONNECTIONS, default=1024" desc:"connections the webhook port holds at once, and so requests holding a body; more wait in the kernel's backlog (idle keep-alive connections are closed to make room). With MAX_BODY_BYTES it bounds the port's memory"`
	MaxHeaderBytes    int           `env:"MAX_HEADER_BYTES, default=16384" desc:"largest accepted request header block of the webhook port"`
	ReadHeaderTimeout time.Duration `env:"READ_HEADER_TIMEOUT, default=10s" desc:"a webhook connection that has not sent its headers within this is closed (slowloris)"`
	ReadTimeout       time.Duration `env:"READ_TIMEOUT, default=30s" desc:"a webhook request not fully read (headers and body) within this is cut off"`
	BodyTimeout       time.Duration `env:"BODY_TIMEOUT, default=5s" desc:"a webhook body not fully received within this after its headers gets 408; the request holds no publish slot meanwhile. At most READ_TIMEOUT"`
	IdleTimeout       time.Duration `env:"IDLE_TIMEOUT, default=2m" desc:"an idle keep-alive webhook connection is closed after this"`
	DedupTTL          time.Duration `env:"DEDUP_TTL, default=24h" desc:"how long a delivered webhook's event id is remembered"`
	DedupMax          int           `env:"DEDUP_MAX_ENTRIES, default=100000" desc:"bound of remembered event ids"`
}

// Reconciler configures the poller of quiet, unfinished sessions.
type Reconciler struct {
	Interval   time.Duration `env:"INTERVAL, default=1m" desc:"how often quiet sessions are looked for, 0 = off"`
	QuietAfter time.Duration `env:"QUIET_AFTER, default=10m" desc:"a session not final and unchanged this long is polled with session/status"`
	MaxAge     time.Duration `env:"MAX_AGE, default=72h" desc:"a session not final this long after its creation is no longer polled: its last state is published once more with the header paysession-warning: stale. Must exceed the service's 240m confirmation deadline"`
}

// Confirmation is the policy for sessions waiting for confirmation.
type Confirmation struct {
	Policy    string   `env:"POLICY, default=manual" desc:"manual (wait for a confirm/cancel command) or auto (confirm by the rules below)"`
	Kinds     []string `env:"KINDS" desc:"with auto: operation kinds confirmed automatically, payout and/or payment"`
	MaxAmount int64    `env:"MAX_AMOUNT, default=0" desc:"with auto: largest amount (minor units) confirmed automatically; must be > 0"`
}

// Publishers configures the periodic publishers.
type Publishers struct {
	WalletBalanceInterval time.Duration `env:"WALLET_BALANCE_INTERVAL, default=0" desc:"period of wallet/balance publishing (API v1), 0 = off"`
	FPSBanksInterval      time.Duration `env:"FPS_BANKS_INTERVAL, default=0" desc:"period of fps/banks publishing (API v1), 0 = off"`
}

// Log configures logging.
type Log struct {
	Level      string   `env:"LEVEL, default=info" desc:"debug, info, warn or error"`
	Format     string   `env:"FORMAT, default=json" desc:"json or text"`
	RedactKeys []string `env:"REDACT_KEYS" desc:"extra attribute names whose values are masked in logs"`
}
