package faults_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/config"
)

// RigOptions configure NewRig. The zero value is a working rig.
type RigOptions struct {
	// Brokers default to harness.Kafka(t); a broker fault test passes its
	// own harness.StartTestBroker's address.
	Brokers []string
	// Partitions of every command topic and the retry topic (default 3).
	Partitions int32
	// SessionPartitions of the sessions, session-updates and webhook-events
	// topics (default 1).
	SessionPartitions int32
	// Webhooks wires the sandbox's webhooks to the connector's endpoint.
	Webhooks bool
	// WebhookURL, when set, is where the sandbox posts its webhooks instead
	// (a test's proxy in front of several replicas).
	WebhookURL string
	// SandboxFlags are extra paysim flags (fault knobs).
	SandboxFlags []string
	// Env overrides connector variables (PAYSESSION_...).
	Env map[string]string
	// TopicConfigs are topic configs set on creation, by variable
	// (PAYSESSION_TOPIC_...): e.g. max.message.bytes of a command topic,
	// cleanup.policy of the sessions topic. Other topics keep the broker's
	// defaults.
	TopicConfigs map[string]map[string]string
	// MaxRecordBytes raises the limit of the rig's producer batches (the
	// client's default is 1 MB) for scenarios that write larger records;
	// the topic must allow them (TopicConfigs: max.message.bytes).
	MaxRecordBytes int32
	// CountAPICalls puts a proxy that counts requests per idempotency key
	// between the connector and the sandbox (Rig.APICalls).
	CountAPICalls bool
	// Registry starts an in-process fake schema registry (srfake) and
	// configures the connector with it (PAYSESSION_REGISTRY_URL): its
	// outcomes are then Confluent-framed, and Avro commands are read
	// through it (Rig.Registry).
	Registry bool
	// ApplyTopics, when set, has `connector topics apply` create the
	// topics, with these flags (e.g. -replication 3), as an operator
	// would; Partitions, SessionPartitions and TopicConfigs are then
	// unused.
	ApplyTopics []string
	// ExtraProjects are further partner projects of the connector
	// (PAYSESSION_API_EXTRA_PROJECTS), each signing with the sandbox's
	// partner key; the sandbox knows only its own project.
	ExtraProjects []string
}

// Rig is one scenario's world: fresh topics on the broker, a paysim
// process, a `connector run` process, a producer and the outcome reader.
type Rig struct {
	ID        string
	Brokers   []string
	Client    *kgo.Client       // producer and admin
	Topics    map[string]string // PAYSESSION_TOPIC_... → topic
	Sandbox   *Sandbox
	Connector *Connector
	Outcomes  *Outcomes
	Produced  []Command  // every command produced through the rig, with its position
	APICalls  *APICalls  // requests per key, with RigOptions.CountAPICalls
	Registry  *sr.Client // the fake registry's client, with RigOptions.Registry
}

// NewRig creates the topics (deleted when t ends), starts the sandbox and
// the connector and waits until both are ready.
func NewRig(t testing.TB, o RigOptions) *Rig {
	t.Helper()
	if o.Brokers == nil {
		o.Brokers = harness.Kafka(t) // first: skips the test in -short mode
	}
	if o.Partitions == 0 {
		o.Partitions = 3
	}
	r := &Rig{ID: randomID(), Brokers: o.Brokers, Topics: map[string]string{}}
	opts := []kgo.Opt{kgo.SeedBrokers(o.Brokers...), kgo.ProducerLinger(5 * time.Millisecond),
		kgo.MaxBufferedRecords(1 << 20)}
	if o.MaxRecordBytes > 0 {
		opts = append(opts, kgo.ProducerBatchMaxBytes(o.MaxRecordBytes))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close) // registered first: runs after the topics are deleted
	r.Client = cl
	if o.ApplyTopics != nil {
		r.Topics = harness.ConnectorTopicNames(t, cl)
	} else {
		r.Topics = harness.ConnectorTopicsLayout(t, cl, o.Partitions, max(1, o.SessionPartitions), o.TopicConfigs)
	}
	env := connectorEnv(o.Brokers, nil, r.ID, r.Topics, o.Env)
	env["PAYSESSION_WEBHOOK_LISTEN_ADDR"] = freeAddr(t)
	var hookURL string
	if o.Webhooks {
		hookURL = "http://" + env["PAYSESSION_WEBHOOK_LISTEN_ADDR"] + webhookPath
	}
	if o.WebhookURL != "" {
		hookURL = o.WebhookURL
	}
	r.Sandbox = StartSandbox(t, SandboxOptions{WebhookURL: hookURL, Flags: o.SandboxFlags})
	sandboxVars(env, r.Sandbox)
	var extra []string
	for _, id := range o.ExtraProjects {
		extra = append(extra, id+"="+env["PAYSESSION_API_PRIVATE_KEY_FILE"])
	}
	if len(extra) > 0 {
		env["PAYSESSION_API_EXTRA_PROJECTS"] = strings.Join(extra, ",")
	}
	if o.CountAPICalls {
		r.APICalls = StartAPICalls(t, r.Sandbox.URL)
		env["PAYSESSION_API_BASE_URL"] = r.APICalls.URL
	}
	if o.Registry {
		reg := srfake.New()
		t.Cleanup(reg.Close)
		if r.Registry, err = sr.NewClient(sr.URLs(reg.URL())); err != nil {
			t.Fatal(err)
		}
		env["PAYSESSION_REGISTRY_URL"] = reg.URL()
	}
	if o.ApplyTopics != nil {
		applyTopics(t, env, o.ApplyTopics)
		keepCreated(t, cl, r.Topics)
	}
	r.Outcomes = ReadOutcomes(t, o.Brokers, r.Registry, r.Topics["PAYSESSION_TOPIC_COMMAND_RESULTS"],
		r.Topics["PAYSESSION_TOPIC_DEAD_LETTER"], r.Topics["PAYSESSION_TOPIC_WEBHOOK_EVENTS"], r.Topics["PAYSESSION_TOPIC_SESSIONS"])
	r.Connector = StartConnector(t, env)
	return r
}

// randomID returns 8 random hex digits and a closing letter. Command keys
// put an index right after the id ("crash-<id>-000042"): an id ending in
// six digits would join that index into a 12-digit run in two groups, a
// card number's shape, and one time in ten its Luhn check passes, so the
// connector rightly refused the key as a card number (invalid_key).
func randomID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:]) + "r"
}

// Command is one command record to produce, and where it landed.
type Command struct {
	Kind  codec.CommandKind
	Key   string
	Value string // JSON command
	At    Position
}

// Topic is the rig's command topic of kind.
func (r *Rig) Topic(kind codec.CommandKind) string {
	return r.Topics[config.Prefix+"TOPIC_"+strings.ToUpper(string(kind))]
}

// Produce writes the commands in one go (acks=all, idempotent), notes their
// positions and adds them to r.Produced. Records of one call with the same
// key land on the same partition in the given order.
func (r *Rig) Produce(t testing.TB, cmds ...Command) []Command {
	t.Helper()
	recs := make([]*kgo.Record, len(cmds))
	for i, c := range cmds {
		recs[i] = &kgo.Record{Topic: r.Topic(c.Kind), Key: []byte(c.Key), Value: []byte(c.Value)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res := r.Client.ProduceSync(ctx, recs...)
	if err := res.FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	out := append([]Command(nil), cmds...)
	for i, rec := range recs { // res is in completion order; recs now carry their positions
		out[i].At = Position{rec.Topic, rec.Partition, rec.Offset}
	}
	r.Produced = append(r.Produced, out...)
	return out
}

// ResultsEndOffsets returns the high watermark of each partition of the
// results topic: every result record written so far sits below it.
func (r *Rig) ResultsEndOffsets(t testing.TB) map[int32]int64 {
	t.Helper()
	topic := r.Topics["PAYSESSION_TOPIC_COMMAND_RESULTS"]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ends, err := kadm.NewClient(r.Client).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatalf("list end offsets of %s: %v", topic, err)
	}
	out := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err != nil {
			t.Fatalf("end offset %s/%d: %v", o.Topic, o.Partition, o.Err)
		}
		out[o.Partition] = o.Offset
	})
	return out
}

// Payout is the JSON of an init_payout of amount minor units to the
// sandbox's succeeding test card, below the confirmation threshold so that
// it finishes without a confirm command.
func Payout(amount int64, ref string) string {
	return fmt.Sprintf(`{"instrument":{"type":"card","card":{"type":"bank_card","bank_card":{"number":"4111111111111111",`+
		`"expiration_month":"12","expiration_year":"29"}}},"amount":%d,"currency":"rub","customer":{"reference":%q}}`, amount, ref)
}

// applyTopics runs `connector topics apply` with the connector's variables
// and flags, and fails t unless it created and verified every topic.
func applyTopics(t testing.TB, env map[string]string, flags []string) {
	t.Helper()
	cmd := exec.Command(binary(t, "connector"), append([]string{"topics", "apply"}, flags...)...)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("connector topics apply %v: %v\n%s", flags, err, out)
	}
	t.Logf("connector topics apply %v:\n%s", flags, out)
}

// keepCreated removes from topics (PAYSESSION_TOPIC_... → topic) the topics
// that do not exist: those of features the configuration leaves off (the
// periodic publishers), which `connector topics apply` does not create. The
// oracle's checks then look only at topics the connector can write.
func keepCreated(t testing.TB, cl *kgo.Client, topics map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	md, err := kadm.NewClient(cl).Metadata(ctx, slices.Collect(maps.Values(topics))...)
	if err != nil {
		t.Fatalf("metadata of the applied topics: %v", err)
	}
	for v, name := range topics {
		if td, ok := md.Topics[name]; !ok || td.Err != nil {
			t.Logf("%s: not created by topics apply (a feature left off)", v)
			delete(topics, v)
		}
	}
}
