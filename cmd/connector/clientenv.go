package main

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/sethvargo/go-envconfig"

	"github.com/paysession/paysession/connector/kit"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/config"
)

// clientSections are the variable prefixes that produce and tail read: the
// Kafka connection, the topic names, the schema registry, logging, and the
// consent to secret files other users may read (those of the Kafka and
// registry credentials are checked). The
// API, webhook and policy variables of `run` are not needed to write a
// command or read an outcome, so they are neither required nor checked.
var clientSections = []string{"KAFKA_", "TOPIC_", "REGISTRY_", "LOG_", "ALLOW_READABLE_SECRETS"}

// clientPlaceholders satisfy the checks of variables that produce and tail
// do not use (config.Load validates the whole configuration).
var clientPlaceholders = map[string]string{
	config.Prefix + "API_BASE_URL":         "http://127.0.0.1",
	config.Prefix + "API_PROJECT":          "unused",
	config.Prefix + "API_PRIVATE_KEY_FILE": os.DevNull,
	config.Prefix + "WEBHOOK_ENABLED":      "false",
}

// clientEnv is env restricted to clientSections, plus clientPlaceholders.
func clientEnv(env envconfig.Lookuper) envconfig.Lookuper {
	return envconfig.LookuperFunc(func(k string) (string, bool) {
		for _, s := range clientSections {
			if strings.HasPrefix(k, config.Prefix+s) {
				return env.Lookup(k)
			}
		}
		v, ok := clientPlaceholders[k]
		return v, ok
	})
}

// loadClientConfig loads the configuration of produce and tail.
func loadClientConfig(ctx context.Context, env envconfig.Lookuper, stderr io.Writer) (*config.Config, bool) {
	return loadConfig(ctx, clientEnv(env), stderr)
}

// kitTopics returns the configured topic names in the kit's terms.
func kitTopics(t config.Topics) kit.Topics {
	out := kit.DefaultTopics()
	out.Commands = map[kit.CommandKind]string{}
	for k, topic := range t.Commands() {
		out.Commands[codec.CommandKind(k)] = topic
	}
	out.Retry, out.Attempts, out.CommandResults, out.Sessions = t.Retry, t.Attempts, t.CommandResults, t.Sessions
	out.SessionUpdates = t.SessionUpdates
	out.WebhookEvents, out.DeadLetter, out.WalletBalances, out.FPSBanks = t.WebhookEvents, t.DeadLetter, t.WalletBalances, t.FPSBanks
	return out
}
