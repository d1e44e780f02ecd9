package connector

import (
	"crypto/rsa"
	"fmt"
	"strings"

	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/payapi"
	"github.com/paysession/paysession/internal/signing"
)

// signers loads the private key of the default project and of each
// further project (PAYSESSION_API_EXTRA_PROJECTS, in the order given) and
// returns the signers of their requests, each with the configured padding
// and all behind gate (processors.go).
func signers(cfg *config.Config, gate *signing.Gate) (signing.Signer, []payapi.Project, error) {
	pad, err := padding(cfg.API)
	if err != nil {
		return nil, nil, err
	}
	k, err := signing.LoadPrivateKey(cfg.API.PrivateKeyFile)
	if err != nil {
		return nil, nil, fmt.Errorf("%sAPI_PRIVATE_KEY_FILE: %w", config.Prefix, err)
	}
	files, err := cfg.ExtraProjectKeyFiles()
	if err != nil {
		return nil, nil, err
	}
	projects := make([]payapi.Project, 0, len(files))
	for _, f := range files {
		pk, err := signing.LoadPrivateKey(f.KeyFile)
		if err != nil {
			return nil, nil, fmt.Errorf("%sAPI_EXTRA_PROJECTS: project %s: %w", config.Prefix, f.ID, err)
		}
		projects = append(projects, payapi.Project{ID: f.ID, Signer: gate.Limit(signing.NewRSASigner(pk, pad))})
	}
	return gate.Limit(signing.NewRSASigner(k, pad)), projects, nil
}

// webhookVerifier loads every service public key and returns a verifier
// that accepts a signature under any of them (key rotation).
func webhookVerifier(a config.API) (signing.Verifier, error) {
	pad, err := padding(a)
	if err != nil {
		return nil, err
	}
	if len(a.ServicePublicKeys) == 0 {
		return nil, fmt.Errorf("%sAPI_SERVICE_PUBLIC_KEY_FILES: required", config.Prefix)
	}
	pubs := make([]*rsa.PublicKey, 0, len(a.ServicePublicKeys))
	for _, f := range a.ServicePublicKeys {
		k, err := signing.LoadPublicKey(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%sAPI_SERVICE_PUBLIC_KEY_FILES: %w", config.Prefix, err)
		}
		pubs = append(pubs, k)
	}
	return signing.NewRSAVerifier(pad, pubs...), nil
}

// padding is the RSA signature padding of a.
func padding(a config.API) (signing.Padding, error) {
	pad, err := signing.ParsePadding(a.SignaturePadding)
	if err != nil {
		return 0, fmt.Errorf("%sAPI_SIGNATURE_PADDING: %w", config.Prefix, err)
	}
	return pad, nil
}

// LoadKeys loads every key file cfg names as a start does — the private key
// of each project and, with the webhook endpoint on, the service's public
// keys — and returns the first that does not load, naming its variable:
// the check `connector check` makes before a start.
func LoadKeys(cfg *config.Config) error {
	if _, _, err := signers(cfg, signing.NewGate(1)); err != nil {
		return err
	}
	if cfg.Webhook.Enabled {
		_, err := webhookVerifier(cfg.API)
		return err
	}
	return nil
}
