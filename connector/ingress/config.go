package ingress

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paysession/paysession/internal/fields"
	"github.com/paysession/paysession/internal/outbound"
	"github.com/paysession/paysession/internal/signing"
)

// Defaults of Config's limits.
const (
	DefaultMaxBodyBytes = 64 << 10
	DefaultMaxInFlight  = 128
	DefaultMaxBodies    = 1024
	DefaultBodyTimeout  = 5 * time.Second
	DefaultMaxChecks    = 32
	DefaultCheckTimeout = 5 * time.Second
)

// Config configures an Ingress. Zero durations and sizes take the defaults
// shown.
type Config struct {
	// Path is the URL path of the default project's webhooks; other paths
	// than it and the project paths below get 404. Default "/webhooks".
	Path string
	// DefaultProject is the connector's default partner project
	// (PAYSESSION_API_PROJECT). Optional: when set and one segment of a URL
	// path, Path + "/" + DefaultProject is served too, as Path.
	DefaultProject string
	// Projects are the further partner projects (PAYSESSION_API_EXTRA_PROJECTS).
	// A webhook names no project (the service sends one URL per project),
	// so each project's webhooks arrive at their own path, Path + "/" + id,
	// and their session states name that project (SessionState.Project):
	// the reconciler polls such a session under it. States of webhooks at
	// Path name none (the default project).
	Projects []string
	// Verifier checks X-PARTNER-SIGN; build it with signing.NewRSAVerifier
	// and every current service public key (rotation). Required.
	Verifier signing.Verifier
	// Sessions is the local lookup of the sessions the connector holds:
	// this replica's session writer (sessionwriter.Writer.SessionProject),
	// which holds the sessions of the partitions it owns. A webhook for a
	// session it holds is bound to that session's project at once.
	// Optional: without it every session is confirmed by API.
	Sessions Sessions
	// API confirms, with session/status under the project of the path a
	// webhook arrived at, a session that Sessions does not hold (another
	// replica's, or not yet written); *payapi.Client is one. Required.
	API StatusAPI
	// MaxChecks bounds the session/status calls in flight; a webhook that
	// needs one beyond it gets 503 with Retry-After at once, so webhooks
	// of unknown sessions cannot hold more. Default 32.
	MaxChecks int
	// CheckTimeout bounds one session/status call; a webhook whose call
	// does not answer within it gets 503 (the service resends it).
	// Default 5s.
	CheckTimeout time.Duration
	// Producer publishes the records with TryProduce, which fails at once
	// when the client's buffer is full, so a long Kafka outage turns into
	// quick 503s instead of blocked handlers. Required.
	Producer outbound.Producer
	// Encoder encodes the outcome records. Required.
	Encoder outbound.Encoder
	// Sizer checks each update against the updates topic's limit (shared by
	// the connector's writers): a state that would not fit is published
	// without its operations' metadata. Default: Kafka's default limit.
	Sizer *outbound.Sizer
	// UpdatesTopic receives one update per webhook: its session state with
	// the event id and type as headers, from which the session writer
	// derives the sessions and webhook-events records. Default
	// "payments.sessions.updates".
	UpdatesTopic string
	// MaxBodyBytes answers 413 above it. Default 64 KiB: real webhooks are
	// a few KB (a session with its operations), and every request holding
	// a body may hold this much, so MaxBodies × MaxBodyBytes bounds the
	// memory of bodies (64 MiB by default).
	MaxBodyBytes int64
	// MaxBodies bounds the requests holding a body at once: reading it,
	// verifying it, waiting for a slot or for Kafka. Beyond it a request
	// gets 503 with Retry-After before its body is read. Set it to the
	// webhook listener's connection cap (PAYSESSION_WEBHOOK_MAX_CONNECTIONS):
	// a request holds its connection, so the cap binds first and a client
	// with a slow body takes a connection, never a slot of MaxInFlight.
	// Default 1024.
	MaxBodies int
	// BodyTimeout bounds reading the body, from the end of the headers: a
	// client that has not sent its whole body within it gets 408. Real
	// bodies are a few KB; the server's ReadTimeout would let a trickling
	// client hold its connection and its buffer far longer. Default 5s.
	BodyTimeout time.Duration
	// MaxInFlight bounds the verified webhooks being published (waiting
	// for Kafka); beyond it a webhook waits for a slot (AdmitWait,
	// MaxWaiting), else gets 503 with Retry-After. Only a body that
	// verified under a service key takes a slot, so clients without the
	// service's key cannot take them. Default 128.
	MaxInFlight int
	// AdmitWait is how long a verified webhook beyond MaxInFlight waits for
	// a slot before its 503. Default 1s.
	AdmitWait time.Duration
	// MaxWaiting bounds the verified webhooks waiting for a slot; beyond it
	// one gets 503 at once. Default 8 × MaxInFlight.
	MaxWaiting int
	// PublishTimeout bounds the wait for Kafka before answering 503.
	// Default 10s.
	PublishTimeout time.Duration
	// DeliveryTimeout bounds how long records of an unanswered webhook may
	// stay buffered in the producer; a redelivery within it waits for them
	// instead of producing again. Default 2m; at least PublishTimeout.
	DeliveryTimeout time.Duration
	// DedupeTTL is how long an event id is remembered. Default 25h.
	DedupeTTL time.Duration
	// DedupeMaxEntries bounds the dedupe cache. Default 500000.
	DedupeMaxEntries int
	// DefaultAPIVersion is recorded when the payload has no operation array
	// that tells the version. Default 1.
	DefaultAPIVersion int
	// Registerer receives the metrics; nil registers nowhere.
	Registerer prometheus.Registerer
	// Logger is required.
	Logger *slog.Logger
	// Now is the clock; default time.Now.
	Now func() time.Time
}

func (c *Config) defaults() {
	fields.Default(&c.Path, "/webhooks")
	fields.Default(&c.UpdatesTopic, "payments.sessions.updates")
	fields.Default(&c.MaxBodyBytes, DefaultMaxBodyBytes)
	fields.Default(&c.MaxBodies, DefaultMaxBodies)
	fields.Default(&c.BodyTimeout, DefaultBodyTimeout)
	fields.Default(&c.MaxInFlight, DefaultMaxInFlight)
	fields.Default(&c.MaxChecks, DefaultMaxChecks)
	fields.Default(&c.CheckTimeout, DefaultCheckTimeout)
	fields.Default(&c.AdmitWait, time.Second)
	fields.Default(&c.MaxWaiting, 8*c.MaxInFlight)
	fields.Default(&c.PublishTimeout, 10*time.Second)
	fields.Default(&c.DeliveryTimeout, 2*time.Minute)
	fields.Default(&c.DedupeTTL, 25*time.Hour)
	fields.Default(&c.DedupeMaxEntries, 500000)
	fields.Default(&c.DefaultAPIVersion, 1)
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Sizer == nil {
		c.Sizer, _ = outbound.NewSizer(nil, nil, c.Logger) // registers nothing: cannot fail
	}
}

// Validate reports every missing or invalid field at once. Zero values that
// have defaults are valid.
func (c Config) Validate() error {
	var errs fields.Errors
	add := errs.Add
	if c.Path != "" && !strings.HasPrefix(c.Path, "/") {
		add("Path", "%q must start with /", c.Path)
	}
	seen := map[string]bool{c.DefaultProject: true}
	for i, id := range c.Projects {
		switch {
		case !pathSegment(id):
			add(fmt.Sprintf("Projects[%d]", i), "%q is not one segment of a URL path", id)
		case seen[id]:
			add(fmt.Sprintf("Projects[%d]", i), "%q is named twice (or is DefaultProject)", id)
		}
		seen[id] = true
	}
	if c.Verifier == nil {
		add("Verifier", "required")
	}
	if c.API == nil {
		add("API", "required")
	}
	if c.MaxChecks < 0 {
		add("MaxChecks", "%d is negative", c.MaxChecks)
	}
	if c.Producer == nil {
		add("Producer", "required")
	}
	if c.Encoder == nil {
		add("Encoder", "required")
	}
	if c.Logger == nil {
		add("Logger", "required")
	}
	if c.MaxBodyBytes < 0 {
		add("MaxBodyBytes", "%d is negative", c.MaxBodyBytes)
	}
	if c.MaxBodies < 0 {
		add("MaxBodies", "%d is negative", c.MaxBodies)
	}
	if c.MaxInFlight < 0 {
		add("MaxInFlight", "%d is negative", c.MaxInFlight)
	}
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"BodyTimeout", c.BodyTimeout}, {"CheckTimeout", c.CheckTimeout}, {"PublishTimeout", c.PublishTimeout}, {"DeliveryTimeout", c.DeliveryTimeout}, {"DedupeTTL", c.DedupeTTL}} {
		if d.d < 0 {
			add(d.name, "%s is negative", d.d)
		}
	}
	if c.PublishTimeout > 0 && c.DeliveryTimeout > 0 && c.DeliveryTimeout < c.PublishTimeout {
		add("DeliveryTimeout", "%s is shorter than PublishTimeout %s", c.DeliveryTimeout, c.PublishTimeout)
	}
	if c.DedupeMaxEntries < 0 {
		add("DedupeMaxEntries", "%d is negative", c.DedupeMaxEntries)
	}
	if c.DefaultAPIVersion != 0 && c.DefaultAPIVersion != 1 && c.DefaultAPIVersion != 2 {
		add("DefaultAPIVersion", "%d: want 1 or 2", c.DefaultAPIVersion)
	}
	return errs.Err()
}
