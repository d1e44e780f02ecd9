package faults_test

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/paysession/paysession/internal/paysim"
)

// Connector is a `connector run` process configured only by PAYSESSION_*
// variables. Restart it after Kill with Restart: same configuration, same
// transactional id (the host name), same ports.
type Connector struct {
	*Process
	Env        map[string]string
	OpsURL     string // /healthz, /readyz, /metrics
	WebhookURL string // where the sandbox posts webhooks
}

const webhookPath = "/webhooks/paysession"

// connectorEnv returns the variables of a connector of sandbox s on
// brokers, with topics (variable → topic) and a unique group and
// transactional id prefix; extra overrides any of them.
func connectorEnv(brokers []string, s *Sandbox, id string, topics, extra map[string]string) map[string]string {
	env := map[string]string{
		"PAYSESSION_KAFKA_BROKERS":                 strings.Join(brokers, ","),
		"PAYSESSION_KAFKA_GROUP_ID":                "faults-" + id,
		"PAYSESSION_KAFKA_TRANSACTIONAL_ID_PREFIX": "faults-" + id,
		"PAYSESSION_KAFKA_CLIENT_ID":               "faults-" + id,
		"PAYSESSION_WEBHOOK_PATH":                  webhookPath,
		"PAYSESSION_RECONCILER_INTERVAL":           "0",
		"PAYSESSION_PIPELINE_BATCH_DEADLINE":       "5s",
		"PAYSESSION_PIPELINE_TRANSACTION_TIMEOUT":  "30s",
		"PAYSESSION_SHUTDOWN_GRACE":                "10s",
		// A SIGKILLed connector never leaves its group: its partitions wait
		// for the session timeout (default 45s) before a restart or another
		// member gets them. 6s is the broker's minimum.
		"PAYSESSION_KAFKA_SESSION_TIMEOUT": "6s",
		"PAYSESSION_LOG_LEVEL":             "info",
		"PAYSESSION_LOG_FORMAT":            "text",
	}
	if s != nil {
		sandboxVars(env, s)
	}
	for k, v := range topics {
		env[k] = v
	}
	for k, v := range extra {
		env[k] = v
	}
	return env
}

// StartConnector starts `connector run` with env plus free loopback
// addresses for the webhook endpoint and /readyz (unless env names them),
// and waits until it is ready.
func StartConnector(t testing.TB, env map[string]string) *Connector {
	t.Helper()
	if env["PAYSESSION_WEBHOOK_LISTEN_ADDR"] == "" {
		env["PAYSESSION_WEBHOOK_LISTEN_ADDR"] = freeAddr(t)
	}
	if env["PAYSESSION_METRICS_LISTEN_ADDR"] == "" {
		env["PAYSESSION_METRICS_LISTEN_ADDR"] = freeAddr(t)
	}
	c := &Connector{Env: env, OpsURL: "http://" + env["PAYSESSION_METRICS_LISTEN_ADDR"],
		WebhookURL: "http://" + env["PAYSESSION_WEBHOOK_LISTEN_ADDR"] + env["PAYSESSION_WEBHOOK_PATH"]}
	vars := make([]string, 0, len(env))
	for k, v := range env {
		vars = append(vars, k+"="+v)
	}
	sort.Strings(vars)
	c.Process = StartProcess(t, "connector", binary(t, "connector"), []string{"run"}, vars)
	c.AwaitReady(t)
	return c
}

// AwaitReady waits for the connector's /readyz.
func (c *Connector) AwaitReady(t testing.TB) {
	t.Helper()
	awaitHTTP(t, c.Process, c.OpsURL+"/readyz", 90*time.Second)
}

// Restart starts the connector again after Kill and waits until it is
// ready.
func (c *Connector) Restart(t testing.TB) {
	t.Helper()
	c.Process.Restart()
	c.AwaitReady(t)
}

// sandboxVars points the connector's variables at sandbox s.
func sandboxVars(env map[string]string, s *Sandbox) {
	env["PAYSESSION_API_BASE_URL"] = s.URL
	env["PAYSESSION_API_PROJECT"] = s.Project
	env["PAYSESSION_API_PRIVATE_KEY_FILE"] = filepath.Join(s.KeysDir, paysim.DevPartnerPrivate)
	env["PAYSESSION_API_SERVICE_PUBLIC_KEY_FILES"] = filepath.Join(s.KeysDir, paysim.DevServicePublic)
}
