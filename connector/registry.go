package connector

import (
	"crypto/tls"
	"net/http"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/kafka"
)

// RegistryClient returns a schema registry client of the registry that r
// describes: its URL, basic auth or a bearer token, and the CA bundle
// trusted for https (files loaded now, so a bad file is named). A token
// from PAYSESSION_REGISTRY_TOKEN_FILE is read again at each request, so a
// rotated token is used. It returns nil, nil without a registry URL.
// Whether schemas are registered or only looked up is r.LookupOnly, the
// encoder's choice.
func RegistryClient(r config.Registry) (*sr.Client, error) {
	if r.URL == "" {
		return nil, nil
	}
	opts := []sr.ClientOpt{sr.URLs(r.URL)}
	switch {
	case r.Username != "":
		opts = append(opts, sr.BasicAuth(r.Username, r.Password.Reveal()))
	case r.Token.File() != "":
		opts = append(opts, sr.PreReq(bearerFromFile(r.Token.File())))
	case r.Token.IsSet():
		opts = append(opts, sr.BearerToken(r.Token.Reveal()))
	}
	if r.CAFile != "" {
		pool, err := kafka.CertPool(config.Prefix+"REGISTRY_CA_FILE", r.CAFile)
		if err != nil {
			return nil, err
		}
		opts = append(opts, sr.DialTLSConfig(&tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool}))
	}
	return sr.NewClient(opts...)
}

// bearerFromFile sets the Authorization header of each registry request to
// the token in path, read then.
func bearerFromFile(path string) func(*http.Request) error {
	return func(req *http.Request) error {
		token, err := kafka.ReadTokenFile(config.Prefix+"REGISTRY_TOKEN_FILE", path)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		return nil
	}
}
