package payapi

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"

	"github.com/paysession/paysession/internal/signing"
	"github.com/paysession/paysession/internal/tracing"
)

// DefaultMaxResponseBytes bounds a response body when Config leaves it 0.
const DefaultMaxResponseBytes = 4 << 20

// Config configures a Client.
type Config struct {
	BaseURL     string // e.g. http://127.0.0.1:8080 (without /api/vN)
	Version     int    // 1 or 2; 0 means 1
	Project     string // X-PARTNER-PROJECT of calls that name no project
	Submerchant string // optional X-PARTNER-SUBMERCHANT of calls that name none
	Signer      signing.Signer
	// Projects are further partner projects, each with its own key; a call
	// names one with WithProject. Project and Signer stay the default.
	Projects         []Project
	HTTPClient       *http.Client // optional; default has a 30 s timeout, keeps connections alive and does not follow redirects
	MaxResponseBytes int64        // default 4 MiB
	Logger           *slog.Logger // optional; one debug line per call, never bodies
}

// Validate returns every problem of cfg at once.
func (cfg Config) Validate() error {
	var errs []error
	if cfg.BaseURL == "" {
		errs = append(errs, errors.New("BaseURL: required"))
	} else if u, err := url.Parse(cfg.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("BaseURL: %q is not an http(s) URL", cfg.BaseURL))
	} else if strings.Contains(u.Path, "/api/v") {
		errs = append(errs, fmt.Errorf("BaseURL: %q must not contain /api/vN (the client adds it)", cfg.BaseURL))
	}
	if cfg.Version != 0 && cfg.Version != 1 && cfg.Version != 2 {
		errs = append(errs, fmt.Errorf("Version: %d is not 1 or 2", cfg.Version))
	}
	if cfg.Project == "" {
		errs = append(errs, errors.New("Project: required"))
	}
	if cfg.Signer == nil {
		errs = append(errs, errors.New("Signer: required"))
	}
	seen := map[string]bool{cfg.Project: true}
	for i, p := range cfg.Projects {
		switch {
		case p.ID == "":
			errs = append(errs, fmt.Errorf("Projects[%d].ID: required", i))
		case seen[p.ID]:
			errs = append(errs, fmt.Errorf("Projects[%d].ID: %q is named twice", i, p.ID))
		}
		seen[p.ID] = true
		if p.Signer == nil {
			errs = append(errs, fmt.Errorf("Projects[%d].Signer: required", i))
		}
	}
	if cfg.MaxResponseBytes < 0 {
		errs = append(errs, fmt.Errorf("MaxResponseBytes: %d is negative", cfg.MaxResponseBytes))
	}
	return errors.Join(errs...)
}

// Project is a partner project and the key that signs its requests.
type Project struct {
	ID     string // X-PARTNER-PROJECT
	Signer signing.Signer
}

// Client calls the Payment Session Service. It is safe for concurrent use.
type Client struct {
	base        string
	version     int
	project     string
	submerchant string
	signer      signing.Signer
	signers     map[string]signing.Signer // every project, the default one too
	http        *http.Client
	maxBody     int64
	log         *slog.Logger
	now         func() time.Time
}

// New returns a client for cfg.
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("payapi config: %w", err)
	}
	c := &Client{
		base:        strings.TrimRight(cfg.BaseURL, "/"),
		version:     cfg.Version,
		project:     cfg.Project,
		submerchant: cfg.Submerchant,
		signer:      cfg.Signer,
		signers:     map[string]signing.Signer{cfg.Project: cfg.Signer},
		http:        cfg.HTTPClient,
		maxBody:     cfg.MaxResponseBytes,
		log:         cfg.Logger,
		now:         time.Now,
	}
	for _, p := range cfg.Projects {
		c.signers[p.ID] = p.Signer
	}
	if c.version == 0 {
		c.version = 1
	}
	if c.maxBody == 0 {
		c.maxBody = DefaultMaxResponseBytes
	}
	if c.http == nil {
		c.http = defaultHTTPClient()
	}
	if c.log == nil {
		c.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if tracing.Enabled() {
		c.http = tracedHTTPClient(c.http)
	}
	return c, nil
}

// Projects returns the ids of the projects the client can sign for, the
// default first.
func (c *Client) Projects() []string {
	out := []string{c.project}
	for id := range c.signers {
		if id != c.project {
			out = append(out, id)
		}
	}
	sort.Strings(out[1:])
	return out
}

// Version returns the API version used for v1/v2 methods (1 or 2).
func (c *Client) Version() int { return c.version }

func defaultHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 512
	t.MaxIdleConnsPerHost = 256
	return &http.Client{
		Timeout:   30 * time.Second,
		Transport: t,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// tracedHTTPClient returns a copy of hc whose transport makes a client span
// of each request (otelhttp: method, URL without query, status code,
// error; never a body or a header value) and writes its W3C traceparent
// into the request, replacing one passed through with WithTraceContext.
func tracedHTTPClient(hc *http.Client) *http.Client {
	traced := *hc
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	traced.Transport = otelhttp.NewTransport(base,
		otelhttp.WithTracerProvider(tracing.Provider()),
		otelhttp.WithPropagators(tracing.Propagator()),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return "HTTP " + r.Method + " " + r.URL.Path }))
	return &traced
}
