package config_test

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

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sr"

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

// TestAuthSettingsValidate: the OAUTHBEARER, registry token, CA and
// lookup-only variables are checked, each problem naming its variable.
func TestAuthSettingsValidate(t *testing.T) {
	token := writeFile(t, "token", "eyJ.test.token\n")
	tests := []struct {
		name string
		set  map[string]string
		want []string // "" = valid
	}{
		{"oauthbearer with tls and a token file", map[string]string{"PAYSESSION_KAFKA_SASL_MECHANISM": "OAUTHBEARER",
			"PAYSESSION_KAFKA_TLS_ENABLED": "true", "PAYSESSION_KAFKA_SASL_TOKEN_FILE": token}, nil},
		{"oauthbearer without tls", map[string]string{"PAYSESSION_KAFKA_SASL_MECHANISM": "OAUTHBEARER", "PAYSESSION_KAFKA_SASL_TOKEN_FILE": token},
			[]string{"PAYSESSION_KAFKA_SASL_MECHANISM: OAUTHBEARER without TLS sends the bearer token in clear"}},
		{"oauthbearer without a token file", map[string]string{"PAYSESSION_KAFKA_SASL_MECHANISM": "oauthbearer", "PAYSESSION_KAFKA_TLS_ENABLED": "true"},
			[]string{"PAYSESSION_KAFKA_SASL_TOKEN_FILE: required"}},
		{"oauthbearer token file missing", map[string]string{"PAYSESSION_KAFKA_SASL_MECHANISM": "OAUTHBEARER", "PAYSESSION_KAFKA_TLS_ENABLED": "true",
			"PAYSESSION_KAFKA_SASL_TOKEN_FILE": "/nonexistent/token"}, []string{"PAYSESSION_KAFKA_SASL_TOKEN_FILE: cannot read /nonexistent/token"}},
		{"oauthbearer with a password", map[string]string{"PAYSESSION_KAFKA_SASL_MECHANISM": "OAUTHBEARER", "PAYSESSION_KAFKA_TLS_ENABLED": "true",
			"PAYSESSION_KAFKA_SASL_TOKEN_FILE": token, "PAYSESSION_KAFKA_SASL_USERNAME": "u", "PAYSESSION_KAFKA_SASL_PASSWORD": "p"},
			[]string{"PAYSESSION_KAFKA_SASL_USERNAME: PAYSESSION_KAFKA_SASL_USERNAME and PASSWORD are not used with OAUTHBEARER"}},
		{"token file with scram", map[string]string{"PAYSESSION_KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "PAYSESSION_KAFKA_SASL_USERNAME": "u",
			"PAYSESSION_KAFKA_SASL_PASSWORD": "p", "PAYSESSION_KAFKA_SASL_TOKEN_FILE": token},
			[]string{`PAYSESSION_KAFKA_SASL_TOKEN_FILE: set but PAYSESSION_KAFKA_SASL_MECHANISM is "SCRAM-SHA-512", not OAUTHBEARER`}},
		{"registry bearer token", map[string]string{"PAYSESSION_REGISTRY_URL": "https://registry.example", "PAYSESSION_REGISTRY_TOKEN_FILE": token}, nil},
		{"registry token and basic auth", map[string]string{"PAYSESSION_REGISTRY_URL": "https://registry.example", "PAYSESSION_REGISTRY_TOKEN": "t",
			"PAYSESSION_REGISTRY_USERNAME": "u", "PAYSESSION_REGISTRY_PASSWORD": "p"},
			[]string{"PAYSESSION_REGISTRY_TOKEN: set together with PAYSESSION_REGISTRY_USERNAME/PASSWORD"}},
		{"registry token over remote http", map[string]string{"PAYSESSION_REGISTRY_URL": "http://registry.example", "PAYSESSION_REGISTRY_TOKEN": "t"},
			[]string{"PAYSESSION_REGISTRY_URL: plain http:// to registry.example would send the registry bearer token in clear"}},
		{"registry token without a URL", map[string]string{"PAYSESSION_REGISTRY_TOKEN": "t"}, []string{"PAYSESSION_REGISTRY_URL: required when registry credentials are set"}},
		{"registry CA file missing", map[string]string{"PAYSESSION_REGISTRY_URL": "https://registry.example", "PAYSESSION_REGISTRY_CA_FILE": "/nonexistent/ca.pem"},
			[]string{"PAYSESSION_REGISTRY_CA_FILE: cannot read /nonexistent/ca.pem"}},
		{"registry CA with http", map[string]string{"PAYSESSION_REGISTRY_URL": "http://127.0.0.1:8081", "PAYSESSION_REGISTRY_CA_FILE": token},
			[]string{"PAYSESSION_REGISTRY_CA_FILE: set but PAYSESSION_REGISTRY_URL is plain http://"}},
		{"lookup only", map[string]string{"PAYSESSION_REGISTRY_URL": "https://registry.example", "PAYSESSION_REGISTRY_LOOKUP_ONLY": "true"}, nil},
		{"lookup only without a registry", map[string]string{"PAYSESSION_REGISTRY_LOOKUP_ONLY": "true"},
			[]string{"PAYSESSION_REGISTRY_LOOKUP_ONLY: set but PAYSESSION_REGISTRY_URL is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := minimal(t)
			for k, v := range tt.set {
				env[k] = v
			}
			_, err := load(t, env)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Load succeeded, want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestOAuthBearerReadsTokenFileEachTime: every authentication sends the
// token the file holds then, so a rotated token is used on the next
// connection.
func TestOAuthBearerReadsTokenFileEachTime(t *testing.T) {
	path := writeFile(t, "token", "first.jwt\n")
	env := minimal(t)
	env["PAYSESSION_KAFKA_SASL_MECHANISM"] = "OAUTHBEARER"
	env["PAYSESSION_KAFKA_SASL_TOKEN_FILE"] = path
	env["PAYSESSION_KAFKA_TLS_ENABLED"] = "true"
	c, err := load(t, env)
	if err != nil {
		t.Fatal(err)
	}
	m := saslMechanism(t, c)
	if m.Name() != "OAUTHBEARER" {
		t.Fatalf("mechanism %s", m.Name())
	}
	for _, token := range []string{"first.jwt", "second.jwt"} {
		if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, msg, err := m.Authenticate(context.Background(), "broker:9093")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(msg), "auth=Bearer "+token+"\x01") {
			t.Errorf("client message %q does not carry %s", msg, token)
		}
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Authenticate(context.Background(), "broker:9093"); err == nil || !strings.Contains(err.Error(), "PAYSESSION_KAFKA_SASL_TOKEN_FILE") {
		t.Errorf("empty token file: err %v, want one naming PAYSESSION_KAFKA_SASL_TOKEN_FILE", err)
	}
}

// TestRegistryOpts talks to an https registry whose certificate only the
// configured CA file vouches for, with basic auth, a bearer token, and a
// bearer token file rotated between requests.
func TestRegistryOpts(t *testing.T) {
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
			env := minimal(t)
			env["PAYSESSION_REGISTRY_URL"] = srv.URL
			if !tt.noCAFile {
				env["PAYSESSION_REGISTRY_CA_FILE"] = ca
			}
			for k, v := range tt.set {
				env[k] = v
			}
			c, err := load(t, env)
			if err != nil {
				t.Fatal(err)
			}
			opts, err := c.RegistryOpts()
			if err != nil {
				t.Fatal(err)
			}
			cl, err := sr.NewClient(opts...)
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
	var none config.Config
	if opts, err := none.RegistryOpts(); opts != nil || err != nil {
		t.Errorf("without a URL: %v, %v; want nil, nil", opts, err)
	}
}

// saslMechanism returns the one SASL mechanism of c's Kafka options.
func saslMechanism(t *testing.T, c *config.Config) sasl.Mechanism {
	t.Helper()
	opts, err := c.KafkaOpts()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	mechs, _ := cl.OptValue(kgo.SASL).([]sasl.Mechanism)
	if len(mechs) != 1 {
		t.Fatalf("%d SASL mechanisms, want 1", len(mechs))
	}
	return mechs[0]
}
