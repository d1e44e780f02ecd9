package helm_test

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// helmFails runs helm with args and returns its combined output and error,
// for the renders that must fail.
func helmFails(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(helm(t), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// TestChartRefusesMissingRequired: without the API base URL, the project
// or the brokers, helm install fails naming each missing value (the schema),
// instead of installing a pod that crash-loops on its configuration.
func TestChartRefusesMissingRequired(t *testing.T) {
	all := []string{"--set", "api.baseURL=https://api.paysession.example,api.project=p", "--set", "kafka.brokers={kafka:9092}"}
	tests := []struct {
		name string
		set  []string
		want []string
	}{
		{"none", nil, []string{"/api/baseURL", "/api/project", "/kafka/brokers"}},
		{"no base URL", []string{"--set", "api.project=p", "--set", "kafka.brokers={kafka:9092}"}, []string{"/api/baseURL"}},
		{"no project", []string{"--set", "api.baseURL=https://api.paysession.example", "--set", "kafka.brokers={kafka:9092}"}, []string{"/api/project"}},
		{"no brokers", []string{"--set", "api.baseURL=https://api.paysession.example,api.project=p"}, []string{"/kafka/brokers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, verb := range [][]string{{"lint", "--strict", chart}, {"template", "rel", chart}} {
				out, err := helmFails(t, append(append(verb, "--kube-version", kubeVersion), tt.set...)...)
				if err == nil {
					t.Fatalf("helm %s succeeded without %v", verb[0], tt.want)
				}
				for _, w := range tt.want {
					if !strings.Contains(out, w) {
						t.Errorf("helm %s does not name %s:\n%s", verb[0], w, out)
					}
				}
			}
		})
	}
	run(t, append([]string{"template", "rel", chart, "--kube-version", kubeVersion}, all...)...)
}

// TestChartKafkaTLS: TLS to the brokers is on by default; off, helm refuses
// to render unless kafka.allowPlaintext says the risk is taken, which sets
// PAYSESSION_KAFKA_ALLOW_PLAINTEXT (the connector refuses plaintext to a
// broker that is not loopback without it).
func TestChartKafkaTLS(t *testing.T) {
	required := []string{"--set", "api.baseURL=https://api.paysession.example,api.project=p", "--set", "kafka.brokers={kafka:9092}",
		"--kube-version", kubeVersion}
	off := append(slices.Clone(required), "--set", "kafka.tls.enabled=false")
	for _, verb := range [][]string{{"lint", "--strict", chart}, {"template", "rel", chart}} {
		out, err := helmFails(t, append(verb, off...)...)
		// helm lint reports the schema's refusal, helm template the chart's.
		if err == nil || !strings.Contains(out, "kafka.allowPlaintext") && !strings.Contains(out, "/kafka/allowPlaintext") {
			t.Errorf("helm %s with TLS off: %v, want a refusal naming kafka.allowPlaintext:\n%s", verb[0], err, out)
		}
	}
	tests := []struct {
		name      string
		set       []string
		tls       string
		plaintext string // "" = absent
	}{
		{"default", required, "true", ""},
		{"tls off, allowed", append(slices.Clone(off), "--set", "kafka.allowPlaintext=true"), "false", "true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run(t, append([]string{"lint", "--strict", chart}, tt.set...)...)
			objs, err := decodeAll(run(t, append([]string{"template", "rel", chart}, tt.set...)...))
			if err != nil {
				t.Fatal(err)
			}
			cm := objs["ConfigMap"].(*corev1.ConfigMap)
			if got := cm.Data["PAYSESSION_KAFKA_TLS_ENABLED"]; got != tt.tls {
				t.Errorf("PAYSESSION_KAFKA_TLS_ENABLED = %q, want %q", got, tt.tls)
			}
			if got, ok := cm.Data["PAYSESSION_KAFKA_ALLOW_PLAINTEXT"]; got != tt.plaintext || ok != (tt.plaintext != "") {
				t.Errorf("PAYSESSION_KAFKA_ALLOW_PLAINTEXT = %q (set %v), want %q", got, ok, tt.plaintext)
			}
			checkEnv(t, objs["Deployment"].(*appsv1.Deployment), cm)
		})
	}
}
