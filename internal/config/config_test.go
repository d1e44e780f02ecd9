package config_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/internal/signing"
)

var (
	keyOnce sync.Once
	keyDir  string
)

// keyFiles writes one generated key pair for the whole test binary.
func keyFiles(t *testing.T) (priv, pub string) {
	t.Helper()
	keyOnce.Do(func() {
		dir, err := os.MkdirTemp("", "config-keys")
		if err != nil {
			t.Fatal(err)
		}
		keyDir = dir
		k, err := signing.GenerateKey(2048)
		if err != nil {
			t.Fatal(err)
		}
		if err := signing.WriteKeyPair(k, filepath.Join(dir, "priv.pem"), filepath.Join(dir, "pub.pem")); err != nil {
			t.Fatal(err)
		}
	})
	return filepath.Join(keyDir, "priv.pem"), filepath.Join(keyDir, "pub.pem")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if keyDir != "" {
		os.RemoveAll(keyDir)
	}
	os.Exit(code)
}

// minimal returns the smallest valid environment: its brokers are on
// loopback, where Kafka without TLS is accepted.
func minimal(t *testing.T) map[string]string {
	priv, pub := keyFiles(t)
	return map[string]string{
		"PAYSESSION_API_BASE_URL":                 "https://pay.example.com",
		"PAYSESSION_API_PROJECT":                  "proj-1",
		"PAYSESSION_API_PRIVATE_KEY_FILE":         priv,
		"PAYSESSION_API_SERVICE_PUBLIC_KEY_FILES": pub,
		"PAYSESSION_KAFKA_BROKERS":                "localhost:9092,127.0.0.1:9093",
	}
}

func load(t *testing.T, env map[string]string) (*config.Config, error) {
	t.Helper()
	return config.Load(context.Background(), envconfig.MapLookuper(env))
}

func TestLoadDefaults(t *testing.T) {
	c, err := load(t, minimal(t))
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"version", c.API.Version, 1},
		{"padding", c.API.SignaturePadding, "pkcs1v15"},
		{"brokers", strings.Join(c.Kafka.Brokers, "|"), "localhost:9092|127.0.0.1:9093"},
		{"max in flight", c.Pipeline.MaxInFlight, 256},
		{"key margin", c.Pipeline.KeyLifetimeMargin, 23 * time.Hour},
		{"webhook addr", c.Webhook.ListenAddr, ":8080"},
		{"webhook path", c.Webhook.Path, "/webhooks/paysession"},
		{"metrics addr", c.Metrics.ListenAddr, "127.0.0.1:9090"},
		{"grace", c.ShutdownGrace, 30 * time.Second},
		{"confirm", c.Confirm.Policy, "manual"},
		{"init payout topic", c.Topics.Command["init_payout"], "payments.commands.init-payout"},
		{"bankpay topic", c.Topics.Command["bankpay_push"], "payments.commands.bankpay-push"},
		{"results topic", c.Topics.CommandResults, "payments.command-results"},
		{"retry topic", c.Topics.Retry, "payments.commands.retry"},
		{"wallet publisher off", c.Publish.WalletBalanceInterval, time.Duration(0)},
		{"log format", c.Log.Format, "json"},
		{"command topics", len(c.Topics.Commands()), 13},
		{"capture by kind", c.Topics.Commands()["capture"], "payments.commands.capture"},
		{"session timeout", c.Kafka.SessionTimeout, 45 * time.Second},
		{"webhook body limit", c.Webhook.MaxBodyBytes, int64(64 << 10)},
		{"webhook in flight", c.Webhook.MaxInFlight, 128},
		{"webhook connections", c.Webhook.MaxConnections, 1024},
		{"webhook body timeout", c.Webhook.BodyTimeout, 5 * time.Second},
		{"webhook header limit", c.Webhook.MaxHeaderBytes, 16 << 10},
		{"webhook header timeout", c.Webhook.ReadHeaderTimeout, 10 * time.Second},
		{"webhook read timeout", c.Webhook.ReadTimeout, 30 * time.Second},
		{"webhook idle timeout", c.Webhook.IdleTimeout, 2 * time.Minute},
		{"reconciler max age", c.Reconciler.MaxAge, 72 * time.Hour},
		{"sessions horizon", c.Sessions.Horizon, 7 * 24 * time.Hour},
		{"insecure http", c.API.AllowInsecureHTTP, false},
		{"insecure sasl", c.Kafka.AllowInsecureSASL, false},
	}
	for _, ck := range checks {
		if ck.got != ck.want {
			t.Errorf("%s: got %v, want %v", ck.name, ck.got, ck.want)
		}
	}
}

func TestLoadOverrides(t *testing.T) {
	env := minimal(t)
	env["PAYSESSION_API_VERSION"] = "2"
	env["PAYSESSION_API_SIGNATURE_PADDING"] = "pss"
	env["PAYSESSION_PIPELINE_BATCH_DEADLINE"] = "2s"
	env["PAYSESSION_TOPIC_CAPTURE"] = "orders.capture"
	env["PAYSESSION_CONFIRM_POLICY"] = "auto"
	env["PAYSESSION_CONFIRM_KINDS"] = "payout"
	env["PAYSESSION_CONFIRM_MAX_AMOUNT"] = "500000"
	env["PAYSESSION_LOG_LEVEL"] = ""
	env["PAYSESSION_KAFKA_INSTANCE_ID"] = "connector-2"
	c, err := load(t, env)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.InstanceID(); got != "connector-2" {
		t.Errorf("InstanceID() = %q; want connector-2", got)
	}
	if c.API.Version != 2 || c.API.SignaturePadding != "pss" || c.Pipeline.BatchDeadline != 2*time.Second ||
		c.Topics.Command["capture"] != "orders.capture" || c.Confirm.MaxAmount != 500000 || c.Log.Level != "info" {
		t.Errorf("overrides not applied: %+v", c)
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name string
		set  map[string]string
		del  []string
		want []string
	}{
		{"missing required", nil, []string{"PAYSESSION_API_BASE_URL", "PAYSESSION_API_PROJECT", "PAYSESSION_KAFKA_BROKERS", "PAYSESSION_API_PRIVATE_KEY_FILE"},
			[]string{"PAYSESSION_API_BASE_URL: required", "PAYSESSION_API_PROJECT: required", "PAYSESSION_KAFKA_BROKERS: required", "PAYSESSION_API_PRIVATE_KEY_FILE: required"}},
		{"version", map[string]string{"PAYSESSION_API_VERSION": "3"}, nil, []string{`PAYSESSION_API_VERSION: must be 1 or 2, got "3"`}},
		{"version not a number", map[string]string{"PAYSESSION_API_VERSION": "two"}, nil, []string{`PAYSESSION_API_VERSION: must be an integer, got "two"`}},
		{"bad duration", map[string]string{"PAYSESSION_API_REQUEST_TIMEOUT": "10"}, nil, []string{`PAYSESSION_API_REQUEST_TIMEOUT: must be a duration`}},
		{"bad bool", map[string]string{"PAYSESSION_KAFKA_TLS_ENABLED": "yes please"}, nil, []string{`PAYSESSION_KAFKA_TLS_ENABLED: must be true or false`}},
		{"base url with version", map[string]string{"PAYSESSION_API_BASE_URL": "https://x/api/v1"}, nil, []string{"PAYSESSION_API_BASE_URL: must not include /api/vN"}},
		{"base url scheme", map[string]string{"PAYSESSION_API_BASE_URL": "pay.example.com"}, nil, []string{"PAYSESSION_API_BASE_URL: must be an http(s) URL"}},
		{"key file missing", map[string]string{"PAYSESSION_API_PRIVATE_KEY_FILE": "/nonexistent/key.pem"}, nil, []string{"PAYSESSION_API_PRIVATE_KEY_FILE: cannot read /nonexistent/key.pem"}},
		{"padding", map[string]string{"PAYSESSION_API_SIGNATURE_PADDING": "oaep"}, nil, []string{`PAYSESSION_API_SIGNATURE_PADDING: must be pkcs1v15 or pss, got "oaep"`}},
		{"public keys needed", nil, []string{"PAYSESSION_API_SERVICE_PUBLIC_KEY_FILES"}, []string{"PAYSESSION_API_SERVICE_PUBLIC_KEY_FILES: required"}},
		{"broker", map[string]string{"PAYSESSION_KAFKA_BROKERS": "kafka-0"}, nil, []string{`PAYSESSION_KAFKA_BROKERS: must be host:port, got "kafka-0"`}},
		{"session timeout", map[string]string{"PAYSESSION_KAFKA_SESSION_TIMEOUT": "2s"}, nil, []string{"PAYSESSION_KAFKA_SESSION_TIMEOUT: must be longer than the 3s heartbeat interval, got 2s"}},
		{"static membership without instance id", map[string]string{"PAYSESSION_KAFKA_STATIC_MEMBERSHIP": "true"}, nil, []string{"PAYSESSION_KAFKA_INSTANCE_ID: required with PAYSESSION_KAFKA_STATIC_MEMBERSHIP"}},
		{"sasl mechanism", map[string]string{"PAYSESSION_KAFKA_SASL_MECHANISM": "GSSAPI"}, nil, []string{"PAYSESSION_KAFKA_SASL_MECHANISM: must be PLAIN"}},
		{"sasl missing credentials", map[string]string{"PAYSESSION_KAFKA_SASL_MECHANISM": "SCRAM-SHA-512"}, nil,
			[]string{"PAYSESSION_KAFKA_SASL_USERNAME: required", "PAYSESSION_KAFKA_SASL_PASSWORD: required"}},
		{"tls file without tls", map[string]string{"PAYSESSION_KAFKA_TLS_CA_FILE": "/etc/hosts"}, nil, []string{"PAYSESSION_KAFKA_TLS_CA_FILE: set but PAYSESSION_KAFKA_TLS_ENABLED is false"}},
		{"cert without key", map[string]string{"PAYSESSION_KAFKA_TLS_ENABLED": "true", "PAYSESSION_KAFKA_TLS_CERT_FILE": "/etc/hosts"}, nil, []string{"PAYSESSION_KAFKA_TLS_CERT_FILE: PAYSESSION_KAFKA_TLS_CERT_FILE and PAYSESSION_KAFKA_TLS_KEY_FILE must be set together"}},
		{"topic name", map[string]string{"PAYSESSION_TOPIC_REFUND": "bad topic!"}, nil, []string{"PAYSESSION_TOPIC_REFUND: must be a Kafka topic name"}},
		{"topic duplicate", map[string]string{"PAYSESSION_TOPIC_REFUND": "payments.commands.capture"}, nil, []string{`PAYSESSION_TOPIC_REFUND: topic "payments.commands.capture" is also PAYSESSION_TOPIC_CAPTURE`}},
		{"registry creds without url", map[string]string{"PAYSESSION_REGISTRY_USERNAME": "u", "PAYSESSION_REGISTRY_PASSWORD": "p"}, nil, []string{"PAYSESSION_REGISTRY_URL: required"}},
		{"transaction timeout", map[string]string{"PAYSESSION_PIPELINE_TRANSACTION_TIMEOUT": "15s"}, nil, []string{"PAYSESSION_PIPELINE_TRANSACTION_TIMEOUT: must be at least twice"}},
		{"key margin", map[string]string{"PAYSESSION_PIPELINE_KEY_LIFETIME_MARGIN": "25h"}, nil, []string{"PAYSESSION_PIPELINE_KEY_LIFETIME_MARGIN: must be between 0 and 24h"}},
		{"in flight", map[string]string{"PAYSESSION_PIPELINE_MAX_IN_FLIGHT": "0"}, nil, []string{"PAYSESSION_PIPELINE_MAX_IN_FLIGHT: must be at least 1"}},
		{"session writer commit interval", map[string]string{"PAYSESSION_SESSIONS_COMMIT_INTERVAL": "-1ms"}, nil, []string{"PAYSESSION_SESSIONS_COMMIT_INTERVAL: must not be negative, got -1ms"}},
		{"same listen addr", map[string]string{"PAYSESSION_METRICS_LISTEN_ADDR": ":8080"}, nil, []string{"PAYSESSION_WEBHOOK_LISTEN_ADDR: must differ"}},
		{"webhook path", map[string]string{"PAYSESSION_WEBHOOK_PATH": "hooks"}, nil, []string{"PAYSESSION_WEBHOOK_PATH: must start with /"}},
		{"confirm auto without rules", map[string]string{"PAYSESSION_CONFIRM_POLICY": "auto"}, nil, []string{"PAYSESSION_CONFIRM_KINDS: required", "PAYSESSION_CONFIRM_MAX_AMOUNT: must be greater than 0"}},
		{"confirm policy", map[string]string{"PAYSESSION_CONFIRM_POLICY": "sometimes"}, nil, []string{`PAYSESSION_CONFIRM_POLICY: must be manual or auto, got "sometimes"`}},
		{"publisher on v2", map[string]string{"PAYSESSION_API_VERSION": "2", "PAYSESSION_PUBLISH_FPS_BANKS_INTERVAL": "1h"}, nil, []string{"PAYSESSION_PUBLISH_FPS_BANKS_INTERVAL: needs API version 1"}},
		{"log", map[string]string{"PAYSESSION_LOG_LEVEL": "loud", "PAYSESSION_LOG_FORMAT": "xml"}, nil, []string{"PAYSESSION_LOG_LEVEL: must be", "PAYSESSION_LOG_FORMAT: must be json or text"}},
		{"grace", map[string]string{"PAYSESSION_SHUTDOWN_GRACE": "0s"}, nil, []string{"PAYSESSION_SHUTDOWN_GRACE: must be greater than 0"}},
		{"webhook limits", map[string]string{"PAYSESSION_WEBHOOK_MAX_IN_FLIGHT": "0", "PAYSESSION_WEBHOOK_MAX_HEADER_BYTES": "100",
			"PAYSESSION_WEBHOOK_READ_HEADER_TIMEOUT": "0s", "PAYSESSION_WEBHOOK_IDLE_TIMEOUT": "0s"}, nil,
			[]string{"PAYSESSION_WEBHOOK_MAX_IN_FLIGHT: must be at least 1", "PAYSESSION_WEBHOOK_MAX_HEADER_BYTES: must be at least 4096",
				"PAYSESSION_WEBHOOK_READ_HEADER_TIMEOUT: must be greater than 0", "PAYSESSION_WEBHOOK_IDLE_TIMEOUT: must be greater than 0"}},
		{"webhook read timeout", map[string]string{"PAYSESSION_WEBHOOK_READ_TIMEOUT": "5s"}, nil,
			[]string{"PAYSESSION_WEBHOOK_READ_TIMEOUT: must be at least PAYSESSION_WEBHOOK_READ_HEADER_TIMEOUT"}},
		{"webhook connections", map[string]string{"PAYSESSION_WEBHOOK_MAX_CONNECTIONS": "0", "PAYSESSION_WEBHOOK_BODY_TIMEOUT": "0s"}, nil,
			[]string{"PAYSESSION_WEBHOOK_MAX_CONNECTIONS: must be at least 1", "PAYSESSION_WEBHOOK_BODY_TIMEOUT: must be greater than 0"}},
		{"webhook body timeout", map[string]string{"PAYSESSION_WEBHOOK_BODY_TIMEOUT": "31s"}, nil,
			[]string{"PAYSESSION_WEBHOOK_BODY_TIMEOUT: must be at most PAYSESSION_WEBHOOK_READ_TIMEOUT (30s), got 31s"}},
		{"reconciler max age", map[string]string{"PAYSESSION_RECONCILER_MAX_AGE": "4h"}, nil,
			[]string{"PAYSESSION_RECONCILER_MAX_AGE: must be longer than the service's 4h0m0s confirmation deadline"}},
		{"horizon within the reconciler's age limit", map[string]string{"PAYSESSION_SESSIONS_HORIZON": "72h"}, nil,
			[]string{"PAYSESSION_SESSIONS_HORIZON: must be longer than PAYSESSION_RECONCILER_MAX_AGE (72h0m0s) and PAYSESSION_WEBHOOK_DEDUP_TTL (24h0m0s), got 72h0m0s"}},
		{"horizon within the dedupe window", map[string]string{"PAYSESSION_SESSIONS_HORIZON": "100h", "PAYSESSION_RECONCILER_MAX_AGE": "5h", "PAYSESSION_WEBHOOK_DEDUP_TTL": "200h"}, nil,
			[]string{"PAYSESSION_SESSIONS_HORIZON: must be longer than"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := minimal(t)
			for k, v := range tc.set {
				env[k] = v
			}
			for _, k := range tc.del {
				delete(env, k)
			}
			c, err := load(t, env)
			if err == nil {
				t.Fatalf("no error; config %+v", c)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestLoadNamesEveryBadVariable is the operator's promise: one run names
// every problem, one line each, and a variable that failed to decode is not
// reported a second time by the semantic checks.
func TestLoadNamesEveryBadVariable(t *testing.T) {
	env := minimal(t)
	delete(env, "PAYSESSION_API_PROJECT")
	env["PAYSESSION_API_VERSION"] = "3"
	env["PAYSESSION_PIPELINE_MAX_IN_FLIGHT"] = "many"
	env["PAYSESSION_SHUTDOWN_GRACE"] = "forever"
	env["PAYSESSION_KAFKA_SASL_MECHANISM"] = "KERBEROS"
	env["PAYSESSION_LOG_FORMAT"] = "xml"
	_, err := load(t, env)
	if err == nil {
		t.Fatal("no error")
	}
	want := []string{
		`PAYSESSION_API_VERSION: must be 1 or 2, got "3"`,
		"PAYSESSION_API_PROJECT: required",
		`PAYSESSION_PIPELINE_MAX_IN_FLIGHT: must be an integer, got "many"`,
		`PAYSESSION_SHUTDOWN_GRACE: must be a duration such as 500ms, 30s or 5m, got "forever"`,
		`PAYSESSION_KAFKA_SASL_MECHANISM: must be PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER, got "KERBEROS"`,
		`PAYSESSION_LOG_FORMAT: must be json or text, got "xml"`,
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Errorf("got %d problems, want %d:\n%v", len(lines), len(want), err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
}

func TestWebhookDisabledNeedsNoServiceKeys(t *testing.T) {
	env := minimal(t)
	delete(env, "PAYSESSION_API_SERVICE_PUBLIC_KEY_FILES")
	env["PAYSESSION_WEBHOOK_ENABLED"] = "false"
	env["PAYSESSION_METRICS_LISTEN_ADDR"] = ":8080" // no clash: the webhook port is not opened
	if _, err := load(t, env); err != nil {
		t.Fatal(err)
	}
}
