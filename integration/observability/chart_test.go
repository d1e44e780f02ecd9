package observability

import (
	"slices"
	"testing"
)

func TestSelectors(t *testing.T) {
	cases := []struct {
		name string
		expr string
		want []string
	}{
		{"plain metric", `sum by (topic) (paysession_pipeline_consumer_lag)`, []string{"paysession_pipeline_consumer_lag"}},
		{"matchers kept, range dropped",
			`sum(rate(paysession_pipeline_commands_total{status="indeterminate"}[10m])) / sum(rate(paysession_pipeline_commands_total[10m]))`,
			[]string{"paysession_pipeline_commands_total", `paysession_pipeline_commands_total{status="indeterminate"}`}},
		{"recording rules", `a_b:paysession_x:sum > 1000 and on (namespace, job) a_b:paysession_x:deriv10m > 0`,
			[]string{"a_b:paysession_x:deriv10m", "a_b:paysession_x:sum"}},
		{"name matcher", `increase({__name__=~"paysession_(a|b)_total", result="commit"}[10m])`,
			[]string{`{__name__=~"paysession_(a|b)_total", result="commit"}`}},
		{"functions and labels are not series", `histogram_quantile(0.99, sum by (le) (rate(up[5m])))`, []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Selectors(tc.expr); !slices.Equal(got, tc.want) {
				t.Errorf("Selectors = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestExpandVariables(t *testing.T) {
	vars := map[string]string{"namespace": "obs", "__rate_interval": "1m"}
	cases := []struct {
		name, expr, want string
		err              bool
	}{
		{"both forms", `rate(x{namespace="$namespace"}[${__rate_interval}])`, `rate(x{namespace="obs"}[1m])`, false},
		{"unknown variable", `x{job="$job"}`, "", true},
		{"none", `sum(x)`, `sum(x)`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ExpandVariables(tc.expr, vars)
			if (err != nil) != tc.err || got != tc.want {
				t.Errorf("ExpandVariables = %q, %v; want %q, error %v", got, err, tc.want, tc.err)
			}
		})
	}
}

// TestChartFilesParse: the dashboard has queries and the rule file alerts,
// each alert with a severity, a summary and a runbook link.
func TestChartFilesParse(t *testing.T) {
	dash, err := ChartFile("dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	qs, err := LoadDashboardQueries(dash)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 20 {
		t.Errorf("dashboard has %d queries", len(qs))
	}
	rules, err := ChartFile("prometheus-rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := LoadRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Alerts()) == 0 {
		t.Fatal("no alerts")
	}
	for _, a := range f.Alerts() {
		if a.Labels["severity"] == "" || a.Annotations["summary"] == "" || a.Annotations["runbook_url"] == "" {
			t.Errorf("%s lacks a severity, summary or runbook_url", a.Alert)
		}
	}
}
