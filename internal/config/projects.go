package config

import (
	"crypto/rsa"
	"fmt"
	"strings"

	"github.com/paysession/paysession/internal/signing"
)

// Signer loads the private key and returns the signer of API requests.
func (c *Config) Signer() (signing.Signer, error) {
	pad, err := signing.ParsePadding(c.API.SignaturePadding)
	if err != nil {
		return nil, fmt.Errorf("%sAPI_SIGNATURE_PADDING: %w", Prefix, err)
	}
	k, err := signing.LoadPrivateKey(c.API.PrivateKeyFile)
	if err != nil {
		return nil, fmt.Errorf("%sAPI_PRIVATE_KEY_FILE: %w", Prefix, err)
	}
	return signing.NewRSASigner(k, pad), nil
}

// ProjectKey is a further partner project and the signer of its requests.
type ProjectKey struct {
	ID     string
	Signer signing.Signer
}

// ExtraProjects loads the private key of every project of
// PAYSESSION_API_EXTRA_PROJECTS (id=path entries, checked by Load), in
// the order given; each signs with the configured padding.
func (c *Config) ExtraProjects() ([]ProjectKey, error) {
	pad, err := signing.ParsePadding(c.API.SignaturePadding)
	if err != nil {
		return nil, fmt.Errorf("%sAPI_SIGNATURE_PADDING: %w", Prefix, err)
	}
	var out []ProjectKey
	for _, e := range c.API.ExtraProjects {
		id, path, ok := splitProject(e)
		if !ok {
			return nil, fmt.Errorf("%sAPI_EXTRA_PROJECTS: entry %q is not id=path", Prefix, e)
		}
		k, err := signing.LoadPrivateKey(path)
		if err != nil {
			return nil, fmt.Errorf("%sAPI_EXTRA_PROJECTS: project %s: %w", Prefix, id, err)
		}
		out = append(out, ProjectKey{ID: id, Signer: signing.NewRSASigner(k, pad)})
	}
	return out, nil
}

// ExtraProjectIDs returns the ids of PAYSESSION_API_EXTRA_PROJECTS in the
// order given, without loading their keys: the webhook ingress serves each
// at its own path.
func (c *Config) ExtraProjectIDs() []string {
	var ids []string
	for _, e := range c.API.ExtraProjects {
		if id, _, ok := splitProject(e); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// splitProject reads one id=path entry of PAYSESSION_API_EXTRA_PROJECTS.
func splitProject(entry string) (id, path string, ok bool) {
	id, path, ok = strings.Cut(strings.TrimSpace(entry), "=")
	id, path = strings.TrimSpace(id), strings.TrimSpace(path)
	return id, path, ok && id != "" && path != ""
}

// validateExtraProjects checks every id=path entry: a header-safe id,
// named once and not the default project, and a readable key file.
func (c *Config) validateExtraProjects(p *problems) {
	const name = "API_EXTRA_PROJECTS"
	seen := map[string]bool{c.API.Project: true}
	for _, e := range c.API.ExtraProjects {
		id, path, ok := splitProject(e)
		switch {
		case !ok:
			p.add(name, "entry %q must be id=path of a PEM private key", e)
			continue
		case !headerSafe(id):
			p.add(name, "project id %q must be printable ASCII without spaces or commas", id)
		case c.Webhook.Enabled && !pathSegment(id):
			p.add(name, "project id %q must not contain / ? # or %%: its webhooks arrive at PAYSESSION_WEBHOOK_PATH/id", id)
		case seen[id]:
			p.add(name, "project %s is named twice (or is PAYSESSION_API_PROJECT)", id)
		}
		seen[id] = true
		p.file(name, path)
	}
}

// pathSegment reports whether s can stand, unescaped, as one segment of
// the webhook URL path a project's webhooks arrive at.
func pathSegment(s string) bool { return !strings.ContainsAny(s, "/?#%") }

func headerSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' || s[i] == ',' {
			return false
		}
	}
	return true
}

// WebhookVerifier loads every service public key and returns a verifier that
// accepts a signature under any of them (key rotation).
func (c *Config) WebhookVerifier() (signing.Verifier, error) {
	pad, err := signing.ParsePadding(c.API.SignaturePadding)
	if err != nil {
		return nil, fmt.Errorf("%sAPI_SIGNATURE_PADDING: %w", Prefix, err)
	}
	if len(c.API.ServicePublicKeys) == 0 {
		return nil, fmt.Errorf("%sAPI_SERVICE_PUBLIC_KEY_FILES: required", Prefix)
	}
	pubs := make([]*rsa.PublicKey, 0, len(c.API.ServicePublicKeys))
	for _, f := range c.API.ServicePublicKeys {
		k, err := signing.LoadPublicKey(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%sAPI_SERVICE_PUBLIC_KEY_FILES: %w", Prefix, err)
		}
		pubs = append(pubs, k)
	}
	return signing.NewRSAVerifier(pad, pubs...), nil
}
