package ingress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paysession/paysession/internal/codec"
)

// TestProjectPaths: a webhook names no project, so each further project's
// webhooks arrive at their own path and the state proposed names that
// project; the base path and the default project's path name none (the
// default project), and a path of no configured project is 404 with
// nothing published.
func TestProjectPaths(t *testing.T) {
	tests := []struct {
		name, path  string
		wantCode    int
		wantProject string // "" means nil: the default project
	}{
		{"base path: default project", "/webhooks", 200, ""},
		{"default project's own path", "/webhooks/shop-main", 200, ""},
		{"second project", "/webhooks/shop-2", 200, "shop-2"},
		{"third project", "/webhooks/shop-3", 200, "shop-3"},
		{"unknown project", "/webhooks/shop-9", 404, ""},
		{"project path with a trailing slash", "/webhooks/shop-2/", 404, ""},
		{"nested below a project", "/webhooks/shop-2/x", 404, ""},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, func(c *Config) {
				c.DefaultProject, c.Projects = "shop-main", []string{"shop-2", "shop-3"}
			})
			b := body("payment_finished", fmt.Sprintf("ps_p%d", i), "accepted", 5)
			req := httptest.NewRequest(http.MethodPost, tc.path, bytes.NewReader(b))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(HeaderSignature, sign(t, f.key, b))
			rec := httptest.NewRecorder()
			f.in.ServeHTTP(rec, req)
			if rec.Code != tc.wantCode {
				t.Fatalf("status = %d, want %d", rec.Code, tc.wantCode)
			}
			if tc.wantCode != 200 {
				if f.prod.produced != 0 {
					t.Fatalf("produced %d records for a refused webhook", f.prod.produced)
				}
				return
			}
			var st codec.SessionState
			if err := json.Unmarshal(f.prod.last(updatesTopic).Value, &st); err != nil {
				t.Fatal(err)
			}
			got := ""
			if st.Project != nil {
				got = *st.Project
				if got == "" {
					t.Fatal("project set to the empty string; want nil for the default project")
				}
			}
			if got != tc.wantProject {
				t.Fatalf("state project %q, want %q", got, tc.wantProject)
			}
		})
	}
}

// TestProjectPathOf: ProjectPath is the URL an operator configures at the
// service for each project.
func TestProjectPathOf(t *testing.T) {
	f := newFixture(t, func(c *Config) {
		c.Path, c.DefaultProject, c.Projects = "/hooks/ps", "main", []string{"shop-2"}
	})
	for id, want := range map[string]string{"": "/hooks/ps", "main": "/hooks/ps", "shop-2": "/hooks/ps/shop-2"} {
		if got := f.in.ProjectPath(id); got != want {
			t.Errorf("ProjectPath(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestConfigProjects: further project ids must each be one path segment,
// named once; every problem is named at once.
func TestConfigProjects(t *testing.T) {
	cfg := Config{Verifier: nil, DefaultProject: "a/b", Projects: []string{"ok", "", "x/y", "q?", "ok", "pct%2F"}}
	err := cfg.Validate()
	if err != nil && strings.Contains(err.Error(), "DefaultProject:") {
		t.Errorf("Validate() = %v: a default project that is no path segment only goes without its alias path", err)
	}
	for _, want := range []string{
		`Projects[1]: "" is not one segment`,
		`Projects[2]: "x/y" is not one segment`,
		`Projects[3]: "q?" is not one segment`,
		`Projects[4]: "ok" is named twice`,
		`Projects[5]: "pct%2F" is not one segment`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v\nlacks %q", err, want)
		}
	}
}
