package main

import (
	"bytes"
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/paysession/paysession/integration/harness"
)

// TestCheckOnTheBroker: `connector check` passes on a good setup (topics
// applied by `connector topics apply` with the same plan flags, the
// sandbox as the API, a registry answering) and fails, naming the problem
// in one line, on each kind of problem alone. Before it, there was no
// check: a start found these one at a time, and a misspelt variable was
// silently ignored.
func TestCheckOnTheBroker(t *testing.T) {
	cl := harness.NewClient(t, kgo.MetadataMinAge(10*time.Millisecond))
	env, _ := freshTopicEnv(t, kadm.NewClient(cl))
	delete(env, "PAYSESSION_TOPIC_WALLET_BALANCES")
	delete(env, "PAYSESSION_TOPIC_FPS_BANKS")
	_, vars := harness.Sandbox(t, "check", "")
	for _, k := range []string{"PAYSESSION_API_BASE_URL", "PAYSESSION_API_PROJECT", "PAYSESSION_API_PRIVATE_KEY_FILE", "PAYSESSION_API_SERVICE_PUBLIC_KEY_FILES"} {
		env[k] = vars[k]
	}
	env["PAYSESSION_API_ALLOW_INSECURE_HTTP"] = "true"
	registry := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/subjects" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
		_, _ = w.Write([]byte(`[]`))
	}))
	t.Cleanup(registry.Close)
	env["PAYSESSION_REGISTRY_URL"] = registry.URL
	flags := []string{"-partitions", "1", "-session-partitions", "1", "-replication", "1", "-min-insync-replicas", "1"}
	if code, out, errOut := runTopicsCmd(t, env, append([]string{"apply"}, flags...)...); code != exitOK {
		t.Fatalf("topics apply: exit %d\n%s\n%s", code, out, errOut)
	}
	badKey := filepath.Join(t.TempDir(), "bad.pem")
	if err := os.WriteFile(badKey, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	down := closedAddr(t)

	tests := []struct {
		name   string
		change map[string]string
		want   string // the one problem line's start and a part of it
	}{
		{"good setup", nil, ""},
		{"unknown variable", map[string]string{"PAYSESSION_KAFKA_BROKER": "x"},
			"variables: PAYSESSION_KAFKA_BROKER: not a variable of the connector (did you mean PAYSESSION_KAFKA_BROKERS?)"},
		{"unreadable key file", map[string]string{"PAYSESSION_API_PRIVATE_KEY_FILE": badKey}, "keys: PAYSESSION_API_PRIVATE_KEY_FILE"},
		{"unreachable broker", map[string]string{"PAYSESSION_KAFKA_BROKERS": down}, "kafka: no broker of " + down},
		{"missing topic", map[string]string{"PAYSESSION_TOPIC_CAPTURE": "test.check.no-such-topic"}, "topics: "},
		{"registry down", map[string]string{"PAYSESSION_REGISTRY_URL": "http://" + down}, "registry: http://" + down},
		{"API down", map[string]string{"PAYSESSION_API_BASE_URL": "http://" + down}, "api: " + down + ": TCP"},
		{"API without TLS", map[string]string{"PAYSESSION_API_BASE_URL": strings.Replace(env["PAYSESSION_API_BASE_URL"], "http://", "https://", 1)}, "api: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := maps.Clone(env)
			maps.Copy(e, tt.change)
			var environ []string
			for k, v := range e {
				environ = append(environ, k+"="+v)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var out, errOut bytes.Buffer
			code := runCheck(ctx, append([]string{"-timeout", "5s"}, flags...), envconfig.MapLookuper(e), environ, &out, &errOut)
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			t.Logf("%s", out.String())
			if tt.want == "" {
				if code != exitOK || out.String() != "ok: ready to run\n" {
					t.Fatalf("exit %d:\n%s%s", code, out.String(), errOut.String())
				}
				return
			}
			if code != exitFailed || len(lines) != 1 || !strings.HasPrefix(lines[0], tt.want) {
				t.Fatalf("exit %d, want one line starting %q:\n%s%s", code, tt.want, out.String(), errOut.String())
			}
			if tt.name == "missing topic" && !strings.Contains(lines[0], "test.check.no-such-topic") {
				t.Errorf("the line does not name the topic: %s", lines[0])
			}
			if tt.name == "API without TLS" && !strings.Contains(lines[0], "TLS") {
				t.Errorf("the line does not name TLS: %s", lines[0])
			}
		})
	}
}

// TestConfigDescribe: `connector config -describe` prints every variable
// with its default and meaning, needing no configuration.
func TestConfigDescribe(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"config", "-describe"}, func(string) string { return "" }, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "internal", "config", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| `PAYSESSION_KAFKA_BROKERS` |") || !strings.Contains(string(readme), out.String()) {
		t.Fatalf("config -describe is not internal/config/README.md's configuration table:\n%s", out.String())
	}
}
