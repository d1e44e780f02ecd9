package preflight

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/connector/topics"
	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/kafka"
)

// Config is what a check reads.
type Config struct {
	// Environ is the process environment as NAME=VALUE (os.Environ): an
	// unknown PAYSESSION_* name in it is a problem.
	Environ []string
	// Env looks the variables up (the same environment).
	Env envconfig.Lookuper
	// Topics are the settings of the topic plan the cluster's topics are
	// compared with (`connector topics` flags).
	Topics topics.Settings
	// TopicSettings, when set, returns the settings instead of Topics,
	// once the configuration (cfg) and the cluster's topics (rep) are
	// known: `connector check` reads the settings `connector topics apply`
	// recorded. cl reads committed records and keeps control records.
	TopicSettings func(ctx context.Context, cl *kgo.Client, cfg *config.Config, rep topics.Report) (topics.Settings, error)
	// Timeout bounds each network check.
	Timeout time.Duration
}

// Problem is one thing `run` would fail on or lack: Area is "variables",
// "keys", "kafka", "topics", "registry" or "api".
type Problem struct {
	Area    string
	Message string
}

func (p Problem) String() string { return p.Area + ": " + p.Message }

// Check returns every problem found, none when a start would find what it
// needs. A configuration that does not load stops the check there: the
// rest depends on it.
func Check(ctx context.Context, c Config) []Problem {
	var out []Problem
	add := func(area string, errs ...error) {
		for _, err := range errs {
			out = append(out, Problem{Area: area, Message: err.Error()})
		}
	}
	add("variables", config.UnknownIn(c.Environ)...)
	cfg, err := config.Load(ctx, c.Env)
	if err != nil {
		add("variables", split(err)...)
		return out
	}
	if err := connector.LoadKeys(cfg); err != nil {
		add("keys", err)
	}
	out = append(out, checkKafka(ctx, cfg, c)...)
	if err := checkRegistry(ctx, cfg, c.Timeout); err != nil {
		add("registry", err)
	}
	if err := checkAPI(ctx, cfg.API.BaseURL, c.Timeout); err != nil {
		add("api", err)
	}
	return out
}

// split is the errors joined in err, each on its own.
func split(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// checkKafka asks the brokers, with the configured security, for the
// topics of the configuration and compares them with the plan: what a
// start refuses (missing, not compacted) and every difference.
func checkKafka(ctx context.Context, cfg *config.Config, c Config) []Problem {
	fail := func(area string, err error) []Problem { return []Problem{{Area: area, Message: err.Error()}} }
	opts, err := kafka.ClientOpts(cfg.Kafka)
	if err != nil {
		return fail("kafka", err)
	}
	cause := &kafka.BrokerErrors{} // what a check that ran out of time met
	cl, err := kgo.NewClient(append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords(), kgo.WithHooks(cause))...)
	if err != nil {
		return fail("kafka", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	if err := cl.Ping(ctx); err != nil {
		return fail("kafka", fmt.Errorf("no broker of %s answered within %s: %w", strings.Join(cfg.Kafka.Brokers, ","), c.Timeout, cause.Explain(err)))
	}
	rep, err := topics.Verify(ctx, kadm.NewClient(cl), connector.TopicWants(cfg))
	if err != nil {
		return fail("topics", cause.Explain(err))
	}
	settings := c.Topics
	if c.TopicSettings != nil {
		if settings, err = c.TopicSettings(ctx, cl, cfg, rep); err != nil {
			return fail("topics", cause.Explain(err))
		}
	}
	plan, err := connector.TopicPlan(cfg, settings)
	if err != nil {
		return fail("topics", err)
	}
	var out []Problem
	for _, v := range rep.Violations() {
		out = append(out, Problem{Area: "topics", Message: v.Error()})
	}
	for _, d := range plan.Differences(rep) {
		out = append(out, Problem{Area: "topics", Message: d.String()})
	}
	return out
}

// checkRegistry lists the registry's subjects, with the configured
// credentials, when one is configured.
func checkRegistry(ctx context.Context, cfg *config.Config, timeout time.Duration) error {
	reg, err := connector.RegistryClient(cfg.Registry)
	if err != nil || reg == nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, err := reg.Subjects(ctx); err != nil {
		return fmt.Errorf("%s does not answer: %w", config.RedactURL(cfg.Registry.URL), err)
	}
	return nil
}

// checkAPI connects to the partner API's host (TCP) and, for an https
// URL, completes a TLS handshake verified against the system roots, as
// the API client's does.
func checkAPI(ctx context.Context, base string, timeout time.Duration) error {
	u, err := url.Parse(base)
	if err != nil {
		return err
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("%s: TCP: %w", addr, err)
	}
	defer conn.Close()
	if u.Scheme != "https" {
		return nil
	}
	tc := tls.Client(conn, &tls.Config{ServerName: u.Hostname(), MinVersion: tls.VersionTLS12})
	if err := tc.HandshakeContext(ctx); err != nil {
		return fmt.Errorf("%s: TLS: %w", addr, err)
	}
	return nil
}
