package helm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/paysession/paysession/connector"
	"github.com/paysession/paysession/connector/topics"
	"github.com/paysession/paysession/internal/config"
)

// kafkaTopic is the part of Strimzi's KafkaTopic (v1beta2) the chart uses.
type kafkaTopic struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		TopicName  string                     `json:"topicName"`
		Partitions int32                      `json:"partitions"`
		Replicas   int16                      `json:"replicas"`
		Config     map[string]json.RawMessage `json:"config"`
	} `json:"spec"`
}

// kafkaUser is the part of Strimzi's KafkaUser (v1beta2) the chart uses.
type kafkaUser struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Authentication struct {
			Type string `json:"type"`
		} `json:"authentication"`
		Authorization struct {
			Type string      `json:"type"`
			ACLs []strimzACL `json:"acls"`
		} `json:"authorization"`
	} `json:"spec"`
}

// strimzACL is one ACL rule of a KafkaUser.
type strimzACL struct {
	Resource struct {
		Type        string `json:"type"`
		Name        string `json:"name,omitempty"`
		PatternType string `json:"patternType,omitempty"`
	} `json:"resource"`
	Operations []string `json:"operations"`
	Host       string   `json:"host"`
}

// strimziValues are the chart's values of helm/strimzi_test.go's case.
const strimziValues = chart + "/ci/strimzi-values.yaml"

// renderStrimzi lints and renders the chart with args and decodes every
// manifest strictly: the Strimzi kinds into the types above, the others as
// decodeAll does.
func renderStrimzi(t *testing.T, args ...string) ([]kafkaTopic, []kafkaUser, map[string]any) {
	t.Helper()
	run(t, append([]string{"lint", "--strict", chart, "--kube-version", kubeVersion}, args...)...)
	out := run(t, append([]string{"template", "rel", chart, "--namespace", "payments", "--kube-version", kubeVersion}, args...)...)
	var kts []kafkaTopic
	var users []kafkaUser
	var rest []string
	for _, doc := range docSep.Split(string(out), -1) {
		js, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatalf("yaml: %v\n%s", err, doc)
		}
		var tm metav1.TypeMeta
		if strings.TrimSpace(stripComments(doc)) == "" || json.Unmarshal(js, &tm) != nil {
			rest = append(rest, doc)
			continue
		}
		switch tm.APIVersion + "/" + tm.Kind {
		case "kafka.strimzi.io/v1beta2/KafkaTopic":
			var kt kafkaTopic
			if err := strictDecode(js, &kt); err != nil {
				t.Fatalf("KafkaTopic: %v\n%s", err, doc)
			}
			kts = append(kts, kt)
		case "kafka.strimzi.io/v1beta2/KafkaUser":
			var u kafkaUser
			if err := strictDecode(js, &u); err != nil {
				t.Fatalf("KafkaUser: %v\n%s", err, doc)
			}
			users = append(users, u)
		default:
			rest = append(rest, doc)
		}
	}
	objs, err := decodeAll([]byte(strings.Join(rest, "\n---\n")))
	if err != nil {
		t.Fatal(err)
	}
	return kts, users, objs
}

// strimziSettings reads the plan's settings from the values file, as the
// chart does.
func strimziSettings(t *testing.T, path string) topics.Settings {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Strimzi struct {
			Topics struct {
				Partitions, SessionPartitions, Replicas, MinInsyncReplicas, MaxMessageBytes, RedriveRetentionHours int
			} `json:"topics"`
		} `json:"strimzi"`
	}
	if err := yaml.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	s := v.Strimzi.Topics
	return topics.Settings{Partitions: int32(s.Partitions), SessionPartitions: int32(s.SessionPartitions),
		ReplicationFactor: int16(s.Replicas), MinInsyncReplicas: s.MinInsyncReplicas, MaxMessageBytes: s.MaxMessageBytes,
		RedriveRetention: time.Duration(s.RedriveRetentionHours) * time.Hour}
}

// renderedConfig loads the connector's configuration from the rendered
// ConfigMap as `connector topics` does: the mounted files, absent here, are
// left out (they do not change the topics).
func renderedConfig(t *testing.T, cm *corev1.ConfigMap) *config.Config {
	t.Helper()
	env := maps.Clone(cm.Data)
	for k := range env {
		if strings.HasSuffix(k, "_FILE") || strings.HasSuffix(k, "_FILES") || k == "PAYSESSION_API_EXTRA_PROJECTS" {
			delete(env, k)
		}
	}
	env["PAYSESSION_API_PRIVATE_KEY_FILE"] = os.DevNull
	env["PAYSESSION_WEBHOOK_ENABLED"] = "false"
	env["PAYSESSION_KAFKA_TLS_ENABLED"] = "false"
	env["PAYSESSION_KAFKA_ALLOW_PLAINTEXT"] = "true" // the brokers are not loopback; no connection is made
	delete(env, "PAYSESSION_KAFKA_SASL_MECHANISM")
	cfg, err := config.Load(context.Background(), envconfig.MapLookuper(env))
	if err != nil {
		t.Fatalf("connector rejects the chart's configuration: %v", err)
	}
	return cfg
}

var digits = regexp.MustCompile(`^[0-9]+$`)

// TestStrimziTopics renders a KafkaTopic per topic of the configuration and
// checks each against `connector topics plan` (connector.TopicPlan) of the
// rendered configuration under the values' settings: the same topics (a
// renamed one, a periodic one switched on), partitions, replicas and
// configuration, numbers as plain integers.
func TestStrimziTopics(t *testing.T) {
	kts, users, objs := renderStrimzi(t, "-f", strimziValues)
	if len(users) != 1 {
		t.Fatalf("%d KafkaUsers, want 1", len(users))
	}
	plan, err := connector.TopicPlan(renderedConfig(t, objs["ConfigMap"].(*corev1.ConfigMap)), strimziSettings(t, strimziValues))
	if err != nil {
		t.Fatal(err)
	}
	if len(kts) != len(plan) {
		t.Errorf("%d KafkaTopics, want the plan's %d", len(kts), len(plan))
	}
	seen := map[string]bool{}
	for _, kt := range kts {
		name := kt.Spec.TopicName
		spec, ok := plan.Topic(name)
		if !ok {
			t.Errorf("KafkaTopic %s is not in the plan", name)
			continue
		}
		seen[name] = true
		if kt.Labels["strimzi.io/cluster"] != "my-cluster" {
			t.Errorf("%s: strimzi.io/cluster = %q", name, kt.Labels["strimzi.io/cluster"])
		}
		if !regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`).MatchString(kt.Name) {
			t.Errorf("%s: metadata.name %q is not a DNS subdomain", name, kt.Name)
		}
		if kt.Spec.Partitions != spec.Partitions || kt.Spec.Replicas != spec.ReplicationFactor {
			t.Errorf("%s: %d partitions, %d replicas; the plan has %d, %d", name, kt.Spec.Partitions, kt.Spec.Replicas, spec.Partitions, spec.ReplicationFactor)
		}
		got := map[string]string{}
		for k, raw := range kt.Spec.Config {
			v := strings.Trim(string(raw), `"`)
			if k != topics.CleanupPolicy && !digits.Match(raw) {
				t.Errorf("%s: %s rendered as %s, want a plain integer", name, k, raw)
			}
			got[k] = v
		}
		if !maps.Equal(got, spec.Configs) {
			t.Errorf("%s: config %v, the plan has %v", name, got, spec.Configs)
		}
	}
	for _, want := range []string{"orders.payments.capture", "Orders.Sessions_v2", "payments.wallet-balances"} {
		if !seen[want] {
			t.Errorf("no KafkaTopic for %s", want)
		}
	}
	// The 2 MiB webhook bodies raise the topics that carry them above the
	// command topics' 1 MiB.
	if s, _ := plan.Topic("payments.webhook-events"); s.Configs[topics.MaxMessageBytes] != fmt.Sprint(2097152+topics.CopyHeadroom) {
		t.Errorf("webhook-events max.message.bytes %s, want %d", s.Configs[topics.MaxMessageBytes], 2097152+topics.CopyHeadroom)
	}
}

// TestStrimziUser renders the KafkaUser's ACLs: for every planned topic the
// operations of its role, the three consumer groups, the transactional id
// prefix and IdempotentWrite, with the redrive rights switched on.
func TestStrimziUser(t *testing.T) {
	_, users, objs := renderStrimzi(t, "-f", strimziValues)
	if len(users) != 1 {
		t.Fatalf("%d KafkaUsers, want 1", len(users))
	}
	u := users[0]
	if u.Name != "paysession" || u.Spec.Authentication.Type != "tls" || u.Spec.Authorization.Type != "simple" {
		t.Errorf("KafkaUser %s, authentication %s, authorization %s", u.Name, u.Spec.Authentication.Type, u.Spec.Authorization.Type)
	}
	plan, err := connector.TopicPlan(renderedConfig(t, objs["ConfigMap"].(*corev1.ConfigMap)), strimziSettings(t, strimziValues))
	if err != nil {
		t.Fatal(err)
	}
	acls := map[string][]string{} // type/pattern/name -> operations, sorted
	for _, a := range u.Spec.Authorization.ACLs {
		key := a.Resource.Type + "/" + a.Resource.PatternType + "/" + a.Resource.Name
		if _, dup := acls[key]; dup {
			t.Errorf("two ACLs for %s", key)
		}
		ops := slices.Clone(a.Operations)
		slices.Sort(ops)
		acls[key] = ops
		if a.Host != "*" {
			t.Errorf("%s: host %q", key, a.Host)
		}
	}
	rw := []string{"Describe", "DescribeConfigs", "Read", "Write"}
	want := map[topics.Role][]string{
		topics.Command: rw, topics.Retry: rw, topics.Attempts: rw, topics.SessionUpdates: rw, topics.Sessions: rw, topics.WebhookEvents: rw,
		topics.Results: {"Describe", "DescribeConfigs", "Write"}, topics.Periodic: {"Describe", "DescribeConfigs", "Write"},
		topics.DeadLetter: rw, // Read: redrive is on
		topics.Control:    {"Describe", "DescribeConfigs", "Read"},
	}
	for _, spec := range plan {
		key := "topic/literal/" + spec.Topic
		if got := acls[key]; !slices.Equal(got, want[spec.Roles[0]]) {
			t.Errorf("%s (%s): operations %v, want %v", spec.Topic, spec.Roles[0], got, want[spec.Roles[0]])
		}
		delete(acls, key)
	}
	for key, ops := range map[string][]string{
		"group/literal/payments-connector":             {"Describe", "Read"},
		"group/literal/payments-connector-sessions":    {"Describe", "Read"},
		"group/literal/payments-connector-reconciler":  {"Describe", "Read"},
		"transactionalId/prefix/payments-connector-tx": {"Describe", "Write"},
		"transactionalId/literal/paysession-redrive":   {"Describe", "Write"},
		"cluster//": {"IdempotentWrite"},
	} {
		if got := acls[key]; !slices.Equal(got, ops) {
			t.Errorf("%s: operations %v, want %v", key, got, ops)
		}
		delete(acls, key)
	}
	for key := range acls {
		t.Errorf("unexpected ACL %s", key)
	}
}

// TestStrimziNeedsCluster: turning either resource on without
// strimzi.cluster fails the render with a message naming the value.
func TestStrimziNeedsCluster(t *testing.T) {
	for _, set := range []string{"strimzi.topics.enabled=true", "strimzi.user.enabled=true"} {
		t.Run(set, func(t *testing.T) {
			out, err := helmFails(t, "template", "rel", chart, "--kube-version", kubeVersion, "--set", set,
				"--set", "api.baseURL=https://api.paysession.example,api.project=p", "--set", "kafka.brokers={kafka:9092}")
			if err == nil || !strings.Contains(out, "strimzi.cluster is required") {
				t.Fatalf("helm template --set %s: err %v, output\n%s", set, err, out)
			}
		})
	}
}
