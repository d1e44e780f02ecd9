package config_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paysession/paysession/internal/config"
)

const password = "hunter2-s3cr3t-value"

func TestSecretSources(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pw")
	if err := os.WriteFile(file, []byte(password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		set      map[string]string
		wantErr  string
		wantFile string
	}{
		{"from var", map[string]string{"PAYSESSION_KAFKA_SASL_PASSWORD": password}, "", ""},
		{"from file", map[string]string{"PAYSESSION_KAFKA_SASL_PASSWORD_FILE": file}, "", file},
		{"both", map[string]string{"PAYSESSION_KAFKA_SASL_PASSWORD": password, "PAYSESSION_KAFKA_SASL_PASSWORD_FILE": file},
			"PAYSESSION_KAFKA_SASL_PASSWORD and PAYSESSION_KAFKA_SASL_PASSWORD_FILE: set only one", ""},
		{"missing file", map[string]string{"PAYSESSION_KAFKA_SASL_PASSWORD_FILE": filepath.Join(dir, "nope")},
			"PAYSESSION_KAFKA_SASL_PASSWORD_FILE: read", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := minimal(t)
			env["PAYSESSION_KAFKA_SASL_MECHANISM"] = "SCRAM-SHA-256"
			env["PAYSESSION_KAFKA_SASL_USERNAME"] = "connector"
			for k, v := range tc.set {
				env[k] = v
			}
			c, err := load(t, env)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), password) {
					t.Fatal("error leaks the password")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Kafka.SASL.Password.Reveal(); got != password {
				t.Errorf("Reveal = %q", got)
			}
			if got := c.Kafka.SASL.Password.File(); got != tc.wantFile {
				t.Errorf("File = %q, want %q", got, tc.wantFile)
			}
		})
	}
}

func TestSecretNeverPrints(t *testing.T) {
	s := config.NewSecret(password)
	j, _ := json.Marshal(struct{ P config.Secret }{s})
	for _, out := range []string{s.String(), fmt.Sprintf("%v %+v %#v %s %q", s, s, s, s, s), string(j)} {
		if strings.Contains(out, password) {
			t.Errorf("leak: %s", out)
		}
	}
}

func TestRedactedPrintsEverySettingWithoutSecrets(t *testing.T) {
	env := minimal(t)
	env["PAYSESSION_KAFKA_SASL_MECHANISM"] = "SCRAM-SHA-256"
	env["PAYSESSION_KAFKA_SASL_USERNAME"] = "connector"
	env["PAYSESSION_KAFKA_SASL_PASSWORD"] = password
	env["PAYSESSION_REGISTRY_URL"] = "https://registry:8081"
	env["PAYSESSION_REGISTRY_USERNAME"] = "reg"
	env["PAYSESSION_REGISTRY_PASSWORD"] = password + "-registry"
	c, err := load(t, env)
	if err != nil {
		t.Fatal(err)
	}
	out := c.Redacted()
	if strings.Contains(out, password) {
		t.Fatalf("Redacted leaks a password:\n%s", out)
	}
	for _, v := range config.Variables() {
		if !strings.Contains(out, v.Name+"=") {
			t.Errorf("Redacted lacks %s", v.Name)
		}
	}
	for _, want := range []string{
		"PAYSESSION_KAFKA_SASL_PASSWORD=[redacted]\t# env",
		"PAYSESSION_API_PRIVATE_KEY_FILE=" + env["PAYSESSION_API_PRIVATE_KEY_FILE"] + "\t# env",
		"PAYSESSION_PIPELINE_MAX_IN_FLIGHT=256\t# default",
		"PAYSESSION_KAFKA_BROKERS=localhost:9092,127.0.0.1:9093\t# env",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Redacted lacks %q", want)
		}
	}
}

func TestVariablesAreUniqueAndDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range config.Variables() {
		if seen[v.Name] {
			t.Errorf("duplicate %s", v.Name)
		}
		seen[v.Name] = true
		if !strings.HasPrefix(v.Name, config.Prefix) || v.Description == "" {
			t.Errorf("%s: want prefix and description", v.Name)
		}
	}
	if !seen["PAYSESSION_REGISTRY_PASSWORD_FILE"] || !seen["PAYSESSION_SHUTDOWN_GRACE"] {
		t.Error("expected variables missing")
	}
}
