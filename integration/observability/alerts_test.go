package observability

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestAlertsFireOnTheirConditions runs promtool's rule unit tests
// (testdata/alerts_test.yaml) against the chart's rule file: every alert
// fires, with its labels and rendered annotations, on the condition its
// runbook entry describes, and a deployment just short of it stays silent.
func TestAlertsFireOnTheirConditions(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches Debian's prometheus package: not in -short mode")
	}
	unit := filepath.Join("testdata", "alerts_test.yaml")
	b, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	var tests struct {
		Tests []struct {
			Name          string `json:"name"`
			AlertRuleTest []struct {
				Alertname string          `json:"alertname"`
				ExpAlerts []expectedAlert `json:"exp_alerts"`
			} `json:"alert_rule_test"`
		} `json:"tests"`
	}
	if err := yaml.Unmarshal(b, &tests); err != nil {
		t.Fatal(err)
	}
	fires := map[string]bool{}
	for _, tc := range tests.Tests {
		for _, a := range tc.AlertRuleTest {
			fires[a.Alertname] = fires[a.Alertname] || len(a.ExpAlerts) > 0
		}
	}
	rules, err := ChartFile("prometheus-rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := LoadRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range f.Alerts() {
		if !fires[a.Alert] {
			t.Errorf("%s: no case of %s in which it fires", a.Alert, unit)
		}
	}
	bins, err := EnsurePrometheus(context.Background(), logger(t))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bins.Promtool, "test", "rules", unit).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, out)
	}
}

// expectedAlert is one alert a case expects; only their number matters here.
type expectedAlert map[string]any
