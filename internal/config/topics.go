package config

import (
	"fmt"
	"maps"
	"reflect"
	"strings"

	"github.com/paysession/paysession/schemas"
)

// Topics names every Kafka topic of the connector: one per command kind, the
// retry topic and the outcome topics. Defaults follow the team contract.
type Topics struct {
	// Command is the topic of each command kind, keyed by the kind's name
	// (init_payout, capture, ...; the codec.CommandKind spellings): one
	// variable each, <KIND>, for every kind the schemas name
	// (schemas.Commands), default payments.commands.<kind with - for _>.
	Command CommandTopics `env:"<KIND>"`

	Retry          string `env:"RETRY, default=payments.commands.retry" desc:"commands still retrying at a batch deadline"`
	Attempts       string `env:"ATTEMPTS, default=payments.commands.attempts" desc:"attempt marks proving a command was never sent (compacted)"`
	CommandResults string `env:"COMMAND_RESULTS, default=payments.command-results" desc:"one result per command (key idempotency key)"`
	Sessions       string `env:"SESSIONS, default=payments.sessions" desc:"session states (key session id, compacted); written only by the session writer, from SESSION_UPDATES"`
	SessionUpdates string `env:"SESSION_UPDATES, default=payments.sessions.updates" desc:"internal: candidate session states and verified webhooks (key session id) from which the session writer derives SESSIONS and WEBHOOK_EVENTS; same partition count as both"`
	WebhookEvents  string `env:"WEBHOOK_EVENTS, default=payments.webhook-events" desc:"verified webhooks, each event id once (key session id)"`
	DeadLetter     string `env:"DEAD_LETTER, default=payments.dead-letter" desc:"undecodable or invalid command records"`
	WalletBalances string `env:"WALLET_BALANCES, default=payments.wallet-balances" desc:"periodic wallet balances"`
	FPSBanks       string `env:"FPS_BANKS, default=payments.fps-banks" desc:"periodic FPS bank list"`
	Control        string `env:"CONTROL, default=payments.control" desc:"operators' pause and resume per command kind (key command kind, compacted); written by connector pause and resume, read by every replica"`
}

// Commands returns a copy of Command: the command topic of each command
// kind, keyed by the kind's name.
func (t Topics) Commands() map[string]string { return maps.Clone(t.Command) }

// CommandTopics maps each command kind to its topic. Load reads one
// variable per kind: the fields commandTopicFields describes.
type CommandTopics map[string]string

var commandTopicsType = reflect.TypeFor[CommandTopics]()

// commandTopicFields describes the variable of each command kind's topic as
// the struct field Load, Variables and Settings would read if it were
// written out: name <KIND>, the default topic, "<kind> commands".
func commandTopicFields() []reflect.StructField {
	out := make([]reflect.StructField, len(schemas.Commands))
	for i, k := range schemas.Commands {
		kind := string(k)
		tag := fmt.Sprintf(`env:"%s, default=payments.commands.%s" desc:"%s commands"`,
			strings.ToUpper(kind), strings.ReplaceAll(kind, "_", "-"), kind)
		out[i] = reflect.StructField{Name: kind, Type: reflect.TypeFor[string](), Tag: reflect.StructTag(tag)}
	}
	return out
}

// walkCommandTopics calls fn for the variable of each command kind's topic
// with a string value that it then keeps in m (made when nil).
func walkCommandTopics(m reflect.Value, prefix string, fn func(name string, sf reflect.StructField, fv reflect.Value)) {
	if m.IsNil() {
		m.Set(reflect.MakeMap(commandTopicsType))
	}
	topics := m.Interface().(CommandTopics)
	for _, sf := range commandTopicFields() {
		v := reflect.New(sf.Type).Elem()
		v.SetString(topics[sf.Name])
		key, _, _ := strings.Cut(sf.Tag.Get("env"), ",")
		fn(prefix+key, sf, v)
		topics[sf.Name] = v.String()
	}
}
