package observability

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/paysession/paysession/integration/harness"
)

// ChartFile returns the path of a file of the chart's files/ folder
// (dashboard.json, prometheus-rules.yaml).
func ChartFile(name string) (string, error) {
	root, err := harness.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "helm", "paysession-connector", "files", name), nil
}

// RuleFile is a Prometheus rule file, the spec of a PrometheusRule.
type RuleFile struct {
	Groups []RuleGroup `json:"groups"`
}

// RuleGroup is one group of rules.
type RuleGroup struct {
	Name  string `json:"name"`
	Rules []Rule `json:"rules"`
}

// Rule is a recording rule (Record set) or an alert (Alert set).
type Rule struct {
	Record      string            `json:"record,omitempty"`
	Alert       string            `json:"alert,omitempty"`
	Expr        string            `json:"expr"`
	For         string            `json:"for,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// LoadRules reads a rule file strictly: an unknown member is an error.
func LoadRules(path string) (RuleFile, error) {
	var f RuleFile
	b, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	if err := yaml.UnmarshalStrict(b, &f); err != nil {
		return f, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Alerts returns the alerting rules of every group.
func (f RuleFile) Alerts() []Rule {
	var out []Rule
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				out = append(out, r)
			}
		}
	}
	return out
}

// Records returns the recording rules of every group.
func (f RuleFile) Records() []Rule {
	var out []Rule
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Record != "" {
				out = append(out, r)
			}
		}
	}
	return out
}

// PanelQuery is one query of one dashboard panel.
type PanelQuery struct {
	Panel string
	RefID string
	Expr  string
}

// dashboard is the part of a Grafana dashboard the tests read.
type dashboard struct {
	Panels []panel `json:"panels"`
}

type panel struct {
	Type    string  `json:"type"`
	Title   string  `json:"title"`
	Panels  []panel `json:"panels"` // a collapsed row's panels
	Targets []struct {
		RefID string `json:"refId"`
		Expr  string `json:"expr"`
	} `json:"targets"`
}

// LoadDashboardQueries returns every query of every panel of a Grafana
// dashboard (rows' panels included), in the dashboard's order.
func LoadDashboardQueries(path string) ([]PanelQuery, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []PanelQuery
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			for _, t := range p.Targets {
				out = append(out, PanelQuery{Panel: p.Title, RefID: t.RefID, Expr: t.Expr})
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	return out, nil
}

// ExpandVariables replaces Grafana's variables in expr ($name and ${name})
// with vars; a variable missing from vars is an error.
func ExpandVariables(expr string, vars map[string]string) (string, error) {
	var missing []string
	out := variable.ReplaceAllStringFunc(expr, func(m string) string {
		name := strings.Trim(m, "${}")
		v, ok := vars[name]
		if !ok {
			missing = append(missing, name)
			return m
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("no value for dashboard variable(s) %v in %s", missing, expr)
	}
	return out, nil
}

var variable = regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*`)

// selector matches a metric name that is ours (paysession_…) or a
// recording rule's (level:metric:operations), with its label matchers.
var selector = regexp.MustCompile(`\b((?:paysession_|[a-z_]+:)[a-zA-Z0-9_:]*)(\{[^}]*\})?`)

// nameMatcher matches a selector by __name__ (a regular expression of
// several metrics), with the rest of its matchers.
var nameMatcher = regexp.MustCompile(`\{__name__=~?"[^"]*"[^}]*\}`)

// Selectors returns the instant vector selectors of expr that name our
// metrics or recording rules, with their label matchers, deduplicated and
// sorted: the series an expression reads, each of which must exist for the
// expression to mean anything. Range and offset suffixes are dropped.
func Selectors(expr string) []string {
	seen := map[string]bool{}
	for _, m := range nameMatcher.FindAllString(expr, -1) {
		seen[m] = true
	}
	for _, m := range selector.FindAllStringSubmatch(nameMatcher.ReplaceAllString(expr, ""), -1) {
		seen[m[1]+m[2]] = true
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}
