package helm_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/paysession/paysession/integration/observability"
)

// prometheusRule is the part of the Prometheus operator's CRD the chart
// renders; its spec is a Prometheus rule file.
type prometheusRule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              observability.RuleFile `json:"spec"`
}

// requiredValues are the values without defaults every render needs.
var requiredValues = []string{"--set", "api.baseURL=https://api.paysession.example,api.project=p", "--set", "kafka.brokers={kafka:9092}"}

// renderObservability renders the dashboard ConfigMap and the
// PrometheusRule with extra values and decodes them strictly.
func renderObservability(t *testing.T, values ...string) (*corev1.ConfigMap, *prometheusRule) {
	t.Helper()
	args := []string{"template", "rel", chart, "--namespace", "payments", "--kube-version", kubeVersion}
	out := run(t, append(append(args, requiredValues...), values...)...)
	var cm *corev1.ConfigMap
	var rule *prometheusRule
	for _, doc := range docSep.Split(string(out), -1) {
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		var head struct {
			metav1.TypeMeta   `json:",inline"`
			metav1.ObjectMeta `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatal(err)
		}
		var target any
		switch {
		case head.Kind == "ConfigMap" && strings.HasSuffix(head.Name, "-dashboard"):
			cm = &corev1.ConfigMap{}
			target = cm
		case head.Kind == "PrometheusRule":
			rule = &prometheusRule{}
			target = rule
		default:
			continue
		}
		if err := yaml.UnmarshalStrict([]byte(doc), target); err != nil {
			t.Fatalf("%s %s: %v", head.Kind, head.Name, err)
		}
	}
	return cm, rule
}

// TestObservabilityOffByDefault: neither the dashboard nor the rule is
// rendered unless asked for.
func TestObservabilityOffByDefault(t *testing.T) {
	out := run(t, append([]string{"template", "rel", chart, "--kube-version", kubeVersion}, requiredValues...)...)
	for _, kind := range []string{"kind: PrometheusRule", "paysession-connector.json"} {
		if strings.Contains(string(out), kind) {
			t.Errorf("default values render %q", kind)
		}
	}
}

// TestDashboardConfigMap: the dashboard ships whole, as valid JSON, labelled
// for the Grafana sidecar, with the labels, annotations and namespace given.
func TestDashboardConfigMap(t *testing.T) {
	run(t, append([]string{"lint", "--strict", chart, "--kube-version", kubeVersion,
		"--set", "grafanaDashboard.enabled=true", "--set", "prometheusRule.enabled=true"}, requiredValues...)...)
	cm, rule := renderObservability(t, "--set", "grafanaDashboard.enabled=true",
		"--set", "grafanaDashboard.annotations.grafana_folder=Payments", "--set", "grafanaDashboard.namespace=monitoring")
	if rule != nil {
		t.Error("PrometheusRule rendered without prometheusRule.enabled")
	}
	if cm == nil {
		t.Fatal("no dashboard ConfigMap")
	}
	if cm.Labels["grafana_dashboard"] != "1" || cm.Annotations["grafana_folder"] != "Payments" || cm.Namespace != "monitoring" {
		t.Errorf("labels %v, annotations %v, namespace %q", cm.Labels, cm.Annotations, cm.Namespace)
	}
	want, err := os.ReadFile(filepath.Join(chart, "files", "dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := cm.Data["paysession-connector.json"]
	if strings.TrimSpace(got) != strings.TrimSpace(string(want)) {
		t.Error("the ConfigMap's dashboard differs from files/dashboard.json")
	}
	var d struct {
		UID    string            `json:"uid"`
		Panels []json.RawMessage `json:"panels"`
	}
	if err := json.Unmarshal([]byte(got), &d); err != nil || d.UID == "" || len(d.Panels) == 0 {
		t.Errorf("dashboard JSON: %v, uid %q, %d panels", err, d.UID, len(d.Panels))
	}
}

// TestPrometheusRulePassesPromtool renders the PrometheusRule and runs
// promtool check rules (Debian's prometheus package, fetched into .cache)
// on its spec.
func TestPrometheusRulePassesPromtool(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches Debian's prometheus package: not in -short mode")
	}
	_, rule := renderObservability(t, "--set", "prometheusRule.enabled=true", "--set", "prometheusRule.labels.release=kube-prometheus")
	if rule == nil {
		t.Fatal("no PrometheusRule")
	}
	if rule.Labels["release"] != "kube-prometheus" || rule.Labels["app.kubernetes.io/instance"] != "rel" {
		t.Errorf("labels %v", rule.Labels)
	}
	if len(rule.Spec.Alerts()) < 8 || len(rule.Spec.Records()) == 0 {
		t.Errorf("%d alerts, %d recording rules", len(rule.Spec.Alerts()), len(rule.Spec.Records()))
	}
	spec, err := yaml.Marshal(rule.Spec)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(file, spec, 0o644); err != nil {
		t.Fatal(err)
	}
	bins, err := observability.EnsurePrometheus(context.Background(), slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bins.Promtool, "check", "rules", file).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
	t.Logf("promtool (%s): %s", bins.Version, strings.TrimSpace(string(out)))
}
