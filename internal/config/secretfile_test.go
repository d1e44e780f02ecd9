package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// modeFile writes a file of t with exactly mode (no umask) and returns its
// path.
func modeFile(t *testing.T, name string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte("secret-file-content\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSecretFilesClosedToOthers: every file holding a private key, a
// password or a token is refused at load when other users may open it (any
// of mode 0007), naming the variable and the mode, unless
// PAYSESSION_ALLOW_READABLE_SECRETS is set (then it warns); owner-only and
// group-readable (Kubernetes defaultMode 0440 with fsGroup) files pass, and
// public keys, certificates and CA bundles are not checked.
func TestSecretFilesClosedToOthers(t *testing.T) {
	tlsOn := map[string]string{"PAYSESSION_KAFKA_TLS_ENABLED": "true"}
	// secrets names each secret file variable and the variables it needs
	// besides the file ("FILE" stands for the file's path).
	secrets := []struct {
		variable string
		set      map[string]string
	}{
		{"PAYSESSION_API_PRIVATE_KEY_FILE", map[string]string{"PAYSESSION_API_PRIVATE_KEY_FILE": "FILE"}},
		{"PAYSESSION_API_EXTRA_PROJECTS", map[string]string{"PAYSESSION_API_EXTRA_PROJECTS": "shop-2=FILE"}},
		{"PAYSESSION_KAFKA_TLS_KEY_FILE", merge(tlsOn, map[string]string{"PAYSESSION_KAFKA_TLS_KEY_FILE": "FILE",
			"PAYSESSION_KAFKA_TLS_CERT_FILE": "PUBLIC"})},
		{"PAYSESSION_KAFKA_SASL_TOKEN_FILE", merge(tlsOn, map[string]string{"PAYSESSION_KAFKA_SASL_MECHANISM": "OAUTHBEARER",
			"PAYSESSION_KAFKA_SASL_TOKEN_FILE": "FILE"})},
		{"PAYSESSION_KAFKA_SASL_PASSWORD_FILE", map[string]string{"PAYSESSION_KAFKA_SASL_MECHANISM": "SCRAM-SHA-512",
			"PAYSESSION_KAFKA_SASL_USERNAME": "u", "PAYSESSION_KAFKA_SASL_PASSWORD_FILE": "FILE"}},
		{"PAYSESSION_REGISTRY_PASSWORD_FILE", map[string]string{"PAYSESSION_REGISTRY_URL": "https://registry.example",
			"PAYSESSION_REGISTRY_USERNAME": "u", "PAYSESSION_REGISTRY_PASSWORD_FILE": "FILE"}},
		{"PAYSESSION_REGISTRY_TOKEN_FILE", map[string]string{"PAYSESSION_REGISTRY_URL": "https://registry.example",
			"PAYSESSION_REGISTRY_TOKEN_FILE": "FILE"}},
	}
	modes := []struct {
		mode     os.FileMode
		allow    bool
		wantErr  bool
		wantWarn bool
	}{
		{0o400, false, false, false},
		{0o600, false, false, false},
		{0o440, false, false, false}, // the file's group is this process's
		{0o644, false, true, false},
		{0o604, false, true, false},
		{0o602, false, true, false}, // others may replace the key
		{0o644, true, false, true},
	}
	for _, s := range secrets {
		for _, m := range modes {
			name := strings.TrimPrefix(s.variable, "PAYSESSION_") + "/" + m.mode.String()
			if m.allow {
				name += "/allowed"
			}
			t.Run(name, func(t *testing.T) {
				path := modeFile(t, "secret", m.mode)
				env := minimal(t)
				for k, v := range s.set {
					v = strings.ReplaceAll(v, "FILE", path)
					env[k] = strings.ReplaceAll(v, "PUBLIC", modeFile(t, "public", 0o644))
				}
				if m.allow {
					env["PAYSESSION_ALLOW_READABLE_SECRETS"] = "true"
				}
				c, err := load(t, env)
				named := fmt.Sprintf("%s: %s has mode %04o", s.variable, path, m.mode)
				switch {
				case !m.wantErr && err != nil:
					t.Fatalf("refused: %v", err)
				case m.wantErr && err == nil:
					t.Fatalf("loaded, want an error with %q", named)
				case m.wantErr:
					if !strings.Contains(err.Error(), named) || !strings.Contains(err.Error(), "PAYSESSION_ALLOW_READABLE_SECRETS") {
						t.Fatalf("error %v\nwant it to contain %q and name PAYSESSION_ALLOW_READABLE_SECRETS", err, named)
					}
					return
				}
				if warned := strings.Join(c.Warnings(), "\n"); strings.Contains(warned, named) != m.wantWarn {
					t.Errorf("warnings %q, want one with %q: %v", warned, named, m.wantWarn)
				}
			})
		}
	}
}

// TestPublicFilesNotChecked: public keys, certificates and CA bundles may
// be world-readable.
func TestPublicFilesNotChecked(t *testing.T) {
	env := minimal(t)
	public := modeFile(t, "public.pem", 0o644)
	env["PAYSESSION_API_SERVICE_PUBLIC_KEY_FILES"] = public
	env["PAYSESSION_KAFKA_TLS_ENABLED"] = "true"
	env["PAYSESSION_KAFKA_TLS_CA_FILE"] = public
	env["PAYSESSION_KAFKA_TLS_CERT_FILE"] = public
	env["PAYSESSION_KAFKA_TLS_KEY_FILE"] = modeFile(t, "key.pem", 0o400)
	env["PAYSESSION_REGISTRY_URL"] = "https://registry.example"
	env["PAYSESSION_REGISTRY_CA_FILE"] = public
	c, err := load(t, env)
	if err != nil {
		t.Fatal(err)
	}
	if w := c.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q, want none", w)
	}
}

// TestSecretFileOfAForeignGroup: a group-readable secret whose group this
// process is not in loads with a warning (its members can read it).
// Changing a file's group to a foreign one needs root; the test is skipped
// without.
func TestSecretFileOfAForeignGroup(t *testing.T) {
	path := modeFile(t, "key.pem", 0o440)
	if err := os.Chown(path, -1, 54321); err != nil {
		t.Skipf("cannot give the file a foreign group: %v", err)
	}
	groups, _ := os.Getgroups()
	for _, g := range append(groups, os.Getgid()) {
		if g == 54321 {
			t.Skip("this process is in group 54321")
		}
	}
	env := minimal(t)
	env["PAYSESSION_API_PRIVATE_KEY_FILE"] = path
	c, err := load(t, env)
	if err != nil {
		t.Fatal(err)
	}
	want := "PAYSESSION_API_PRIVATE_KEY_FILE: " + path + " has mode 0440 and a group this process is not in"
	if w := c.Warnings(); len(w) != 1 || !strings.Contains(w[0], want) {
		t.Errorf("warnings %q, want one with %q", w, want)
	}
}

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}
