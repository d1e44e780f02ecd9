package config

import (
	"fmt"
	"strings"
)

// ProjectKeyFile is one entry of PAYSESSION_API_EXTRA_PROJECTS: a further
// partner project and the PEM file of the private key that signs its
// requests.
type ProjectKeyFile struct {
	ID      string
	KeyFile string
}

// ExtraProjectKeyFiles returns the entries of PAYSESSION_API_EXTRA_PROJECTS
// (id=path, checked by Load) in the order given, without reading a key.
func (c *Config) ExtraProjectKeyFiles() ([]ProjectKeyFile, error) {
	var out []ProjectKeyFile
	for _, e := range c.API.ExtraProjects {
		id, path, ok := splitProject(e)
		if !ok {
			return nil, fmt.Errorf("%sAPI_EXTRA_PROJECTS: entry %q is not id=path", Prefix, e)
		}
		out = append(out, ProjectKeyFile{ID: id, KeyFile: path})
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
		p.secretFile(name, path)
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
