package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
