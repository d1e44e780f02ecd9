package ingress

import (
	"path"
	"strings"
)

// projectPaths maps every URL path the ingress serves to the partner
// project whose webhooks arrive there: Path to the default project (nil),
// Path + "/" + id to project id, and Path + "/" + DefaultProject, when
// set, to the default project too.
//
// A webhook's body and signature name no project (the spec's Webhooks
// section: one service key signs them all), yet a session lives in one
// project and session/status finds it only under that project. The
// connector learns the project from where the service delivers: an
// operator configures each project's webhook URL at the service with that
// project's path, and the state the ingress proposes names the project
// (SessionState.Project), so the reconciler polls the session under it.
func projectPaths(cfg Config) map[string]*string {
	paths := map[string]*string{cfg.Path: nil}
	if pathSegment(cfg.DefaultProject) {
		paths[path.Join(cfg.Path, cfg.DefaultProject)] = nil
	}
	for _, id := range cfg.Projects {
		paths[path.Join(cfg.Path, id)] = &id
	}
	return paths
}

// pathSegment reports whether id can stand, unescaped, as one segment of a
// URL path.
func pathSegment(id string) bool { return id != "" && !strings.ContainsAny(id, "/?#%") }

// ProjectPath returns the URL path of project id's webhooks ("" or the
// default project: Path).
func (in *Ingress) ProjectPath(id string) string {
	if id == "" || id == in.cfg.DefaultProject {
		return in.cfg.Path
	}
	return path.Join(in.cfg.Path, id)
}
