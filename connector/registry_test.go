package connector

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/paysession/paysession/internal/config"
)

// writeFile writes content to a new file of t and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRegistryClient talks to an https registry whose certificate only the
// configured CA file vouches for, with basic auth, a bearer token, and a
// bearer token file rotated between requests.
func TestRegistryClient(t *testing.T) {
	var mu sync.Mutex
	var auths []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
		w.Write([]byte(`[]`))
	}))
	defer srv.Close()
	ca := writeFile(t, "ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
	tokenFile := writeFile(t, "token", "tok-1\n")

	tests := []struct {
		name     string
		set      map[string]string
		rotate   string // token file content before the second request
		want     []string
		wantErr  string
		noCAFile bool
	}{
		{"basic auth", map[string]string{"PAYSESSION_REGISTRY_USERNAME": "reg", "PAYSESSION_REGISTRY_PASSWORD": "pw"}, "", []string{"Basic cmVnOnB3", "Basic cmVnOnB3"}, "", false},
		{"bearer token", map[string]string{"PAYSESSION_REGISTRY_TOKEN": "tok-0"}, "", []string{"Bearer tok-0", "Bearer tok-0"}, "", false},
		{"bearer token file, rotated", map[string]string{"PAYSESSION_REGISTRY_TOKEN_FILE": tokenFile}, "tok-2", []string{"Bearer tok-1", "Bearer tok-2"}, "", false},
		{"without the CA file", nil, "", nil, "certificate", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			auths = nil
			mu.Unlock()
			env := map[string]string{"PAYSESSION_REGISTRY_URL": srv.URL}
			if !tt.noCAFile {
				env["PAYSESSION_REGISTRY_CA_FILE"] = ca
			}
			for k, v := range tt.set {
				env[k] = v
			}
			cl, err := RegistryClient(loadConfig(t, env).Registry)
			if err != nil {
				t.Fatal(err)
			}
			_, err = cl.Subjects(context.Background())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.rotate != "" {
				if err := os.WriteFile(tokenFile, []byte(tt.rotate), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := cl.Subjects(context.Background()); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if strings.Join(auths, "|") != strings.Join(tt.want, "|") {
				t.Errorf("Authorization headers %q, want %q", auths, tt.want)
			}
		})
	}
	if cl, err := RegistryClient(config.Registry{}); cl != nil || err != nil {
		t.Errorf("without a URL: %v, %v; want nil, nil", cl, err)
	}
}
