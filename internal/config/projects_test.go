package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/paysession/paysession/internal/config"
)

// TestExtraProjects covers PAYSESSION_API_EXTRA_PROJECTS: each id=path entry
// names its own key file (the connector's wiring loads it); malformed,
// repeated and unreadable entries are named.
func TestExtraProjects(t *testing.T) {
	dir := t.TempDir()
	pem, _ := keyFiles(t)
	env := minimal(t)
	env["PAYSESSION_API_EXTRA_PROJECTS"] = "shop2=" + pem
	cfg, err := load(t, env)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := cfg.ExtraProjectKeyFiles()
	if err != nil || len(ps) != 1 || ps[0] != (config.ProjectKeyFile{ID: "shop2", KeyFile: pem}) {
		t.Fatalf("ExtraProjectKeyFiles() = %+v, %v", ps, err)
	}

	env["PAYSESSION_API_EXTRA_PROJECTS"] = "nopath, shop2=" + pem + ",shop2=" + pem + "," + env["PAYSESSION_API_PROJECT"] + "=" + pem + ",shop 3=" + pem + ",shop4=" + filepath.Join(dir, "missing.pem")
	_, err = load(t, env)
	for _, want := range []string{
		`PAYSESSION_API_EXTRA_PROJECTS: entry "nopath" must be id=path`,
		"PAYSESSION_API_EXTRA_PROJECTS: project shop2 is named twice",
		"PAYSESSION_API_EXTRA_PROJECTS: project " + env["PAYSESSION_API_PROJECT"] + " is named twice",
		`PAYSESSION_API_EXTRA_PROJECTS: project id "shop 3" must be printable ASCII`,
		"PAYSESSION_API_EXTRA_PROJECTS: cannot read " + filepath.Join(dir, "missing.pem"),
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nlacks %q", err, want)
		}
	}
}

// TestExtraProjectsWebhookPaths: each further project's webhooks arrive at
// PAYSESSION_WEBHOOK_PATH/<id>, so with the endpoint on an id must be one
// path segment; with it off the rule does not apply. ExtraProjectIDs names
// the projects in the order given, without their keys.
func TestExtraProjectsWebhookPaths(t *testing.T) {
	priv, _ := keyFiles(t)
	tests := []struct {
		name, webhook, projects string
		wantErr                 string
		wantIDs                 []string
	}{
		{"plain ids", "true", "shop2=" + priv + ",shop-3=" + priv, "", []string{"shop2", "shop-3"}},
		{"slash in an id", "true", "shop/2=" + priv, `project id "shop/2" must not contain / ? # or %`, nil},
		{"percent in an id", "true", "shop%2=" + priv, `project id "shop%2" must not contain`, nil},
		{"question mark in an id", "true", "shop?=" + priv, `project id "shop?" must not contain`, nil},
		{"slash with the endpoint off", "false", "shop/2=" + priv, "", []string{"shop/2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := minimal(t)
			env["PAYSESSION_WEBHOOK_ENABLED"] = tc.webhook
			env["PAYSESSION_API_EXTRA_PROJECTS"] = tc.projects
			cfg, err := load(t, env)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), "PAYSESSION_API_EXTRA_PROJECTS: "+tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.ExtraProjectIDs(); strings.Join(got, ",") != strings.Join(tc.wantIDs, ",") {
				t.Fatalf("ExtraProjectIDs() = %v, want %v", got, tc.wantIDs)
			}
		})
	}
}
