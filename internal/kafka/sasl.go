package kafka

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/paysession/paysession/internal/config"
)

// saslMechanism returns the SASL mechanism that s names.
func saslMechanism(s config.SASL) (sasl.Mechanism, error) {
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
	return nil, fmt.Errorf("%sKAFKA_SASL_MECHANISM: must be PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER, got %q", config.Prefix, s.Mechanism)
}

// tokenFileAuth returns the OAUTHBEARER credentials of each authentication:
// the token in path, read then, so that a token rotated in the file (a
// projected service-account token, an operator's refresh job) is used from
// the next connection on. Surrounding white space is dropped.
func tokenFileAuth(path string) func(context.Context) (oauth.Auth, error) {
	return func(context.Context) (oauth.Auth, error) {
		token, err := ReadTokenFile(config.Prefix+"KAFKA_SASL_TOKEN_FILE", path)
		if err != nil {
			return oauth.Auth{}, err
		}
		if token == "" {
			return oauth.Auth{}, fmt.Errorf("%sKAFKA_SASL_TOKEN_FILE: %s is empty", config.Prefix, path)
		}
		return oauth.Auth{Token: token}, nil
	}
}

// ReadTokenFile reads the token in the file path, which the variable names,
// without surrounding white space; errors name the variable. Callers read
// it at each use, so a token rotated in the file is used from then on. The
// schema registry's bearer token file reads the same way.
func ReadTokenFile(variable, path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", variable, err)
	}
	return strings.TrimSpace(string(b)), nil
}
