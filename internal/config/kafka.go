package config

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// KafkaOpts returns the franz-go options every client of the connector shares:
// seed brokers, client id, TLS (files loaded now, so a bad file is named) and
// SASL. Consumer-group, transactional and producer options are the caller's.
func (c *Config) KafkaOpts() ([]kgo.Opt, error) {
	k := c.Kafka
	seeds := make([]string, len(k.Brokers))
	for i, b := range k.Brokers {
		seeds[i] = strings.TrimSpace(b)
	}
	opts := []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.ClientID(k.ClientID)}
	if k.TLS.Enabled {
		tc, err := k.TLS.config()
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.DialTLSConfig(tc))
	}
	if k.SASL.Mechanism != "" {
		m, err := k.SASL.mechanism()
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}

// GroupOpts are the consumer-group options of the connector's group members
// (the pipeline and the reconciler), to add to KafkaOpts.
func (c *Config) GroupOpts() []kgo.Opt {
	return []kgo.Opt{kgo.SessionTimeout(c.Kafka.SessionTimeout), kgo.HeartbeatInterval(heartbeatInterval)}
}

// InstanceID is the replica's id: PAYSESSION_KAFKA_INSTANCE_ID, else the
// host name.
func (c *Config) InstanceID() string {
	if c.Kafka.InstanceID != "" {
		return c.Kafka.InstanceID
	}
	h, _ := os.Hostname()
	return h
}

// config builds the TLS configuration, loading the CA and client key pair.
func (t TLS) config() (*tls.Config, error) {
	tc := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         t.ServerName,
		InsecureSkipVerify: t.InsecureSkipVerify, //nolint:gosec // operator's explicit choice, documented as tests only
	}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("%sKAFKA_TLS_CA_FILE: %w", Prefix, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%sKAFKA_TLS_CA_FILE: no PEM certificate in %s", Prefix, t.CAFile)
		}
		tc.RootCAs = pool
	}
	if t.CertFile != "" || t.KeyFile != "" {
		pair, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("%sKAFKA_TLS_CERT_FILE/%sKAFKA_TLS_KEY_FILE: %w", Prefix, Prefix, err)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	return tc, nil
}

// mechanism returns the SASL mechanism named by Mechanism.
func (s SASL) mechanism() (sasl.Mechanism, error) {
	user, pass := s.Username, s.Password.Reveal()
	switch strings.ToUpper(s.Mechanism) {
	case "PLAIN":
		return plain.Auth{User: user, Pass: pass}.AsMechanism(), nil
	case "SCRAM-SHA-256":
		return scram.Auth{User: user, Pass: pass}.AsSha256Mechanism(), nil
	case "SCRAM-SHA-512":
		return scram.Auth{User: user, Pass: pass}.AsSha512Mechanism(), nil
	case "OAUTHBEARER":
		return oauth.Oauth(tokenFileAuth(s.TokenFile)), nil
	}
	return nil, fmt.Errorf("%sKAFKA_SASL_MECHANISM: must be PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER, got %q", Prefix, s.Mechanism)
}

// tokenFileAuth returns the OAUTHBEARER credentials of each authentication:
// the token in path, read then, so that a token rotated in the file (a
// projected service-account token, an operator's refresh job) is used from
// the next connection on. Surrounding white space is dropped.
func tokenFileAuth(path string) func(context.Context) (oauth.Auth, error) {
	return func(context.Context) (oauth.Auth, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return oauth.Auth{}, fmt.Errorf("%sKAFKA_SASL_TOKEN_FILE: %w", Prefix, err)
		}
		token := strings.TrimSpace(string(b))
		if token == "" {
			return oauth.Auth{}, fmt.Errorf("%sKAFKA_SASL_TOKEN_FILE: %s is empty", Prefix, path)
		}
		return oauth.Auth{Token: token}, nil
	}
}
