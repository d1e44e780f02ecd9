package kafka

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/internal/config"
)

// ClientOpts returns the franz-go options every client of the connector
// shares, from the Kafka section k: seed brokers, client id, TLS (files
// loaded now, so a bad file is named) and SASL. Consumer-group,
// transactional and producer options are the caller's.
func ClientOpts(k config.Kafka) ([]kgo.Opt, error) {
	seeds := make([]string, len(k.Brokers))
	for i, b := range k.Brokers {
		seeds[i] = strings.TrimSpace(b)
	}
	opts := []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.ClientID(k.ClientID)}
	if k.TLS.Enabled {
		tc, err := tlsConfig(k.TLS)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.DialTLSConfig(tc))
	}
	if k.SASL.Mechanism != "" {
		m, err := saslMechanism(k.SASL)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}

// GroupOpts are the consumer-group options of the connector's group
// members (the pipeline, the session writer and the reconciler), to add
// to ClientOpts.
func GroupOpts(k config.Kafka) []kgo.Opt {
	return []kgo.Opt{kgo.SessionTimeout(k.SessionTimeout), kgo.HeartbeatInterval(config.HeartbeatInterval)}
}

// tlsConfig builds the TLS configuration of t, loading the CA and the
// client key pair.
func tlsConfig(t config.TLS) (*tls.Config, error) {
	tc := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         t.ServerName,
		InsecureSkipVerify: t.InsecureSkipVerify, //nolint:gosec // operator's explicit choice, documented as tests only
	}
	if t.CAFile != "" {
		pool, err := CertPool(config.Prefix+"KAFKA_TLS_CA_FILE", t.CAFile)
		if err != nil {
			return nil, err
		}
		tc.RootCAs = pool
	}
	if t.CertFile != "" || t.KeyFile != "" {
		pair, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("%sKAFKA_TLS_CERT_FILE/%sKAFKA_TLS_KEY_FILE: %w", config.Prefix, config.Prefix, err)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	return tc, nil
}

// CertPool loads the PEM certificates of the CA file path, which the
// variable names: errors name the variable. The schema registry's CA file
// loads the same way.
func CertPool(variable, path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", variable, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s: no PEM certificate in %s", variable, path)
	}
	return pool, nil
}
