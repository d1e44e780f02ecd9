package helm_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
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
