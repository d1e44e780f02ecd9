package observability

import (
	"slices"
	"strings"
	"testing"
)

// TestRunbookHasEveryAlert: the chart README's runbook has one entry per alert of
// the rule file (and none for an alert that does not exist), each saying
// what it means, where to look and what to do, and each alert's runbook_url
// points at its entry.
func TestRunbookHasEveryAlert(t *testing.T) {
	runbook := readmeSectionOf(t, "## Runbook")
	entries := map[string]string{}
	var order []string
	for _, part := range strings.Split(runbook, "\n### ")[1:] {
		name, body, _ := strings.Cut(part, "\n")
		entries[name] = body
		order = append(order, name)
	}
	path, err := ChartFile("prometheus-rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rules, err := LoadRules(path)
	if err != nil {
		t.Fatal(err)
	}
	var alerts []string
	for _, a := range rules.Alerts() {
		alerts = append(alerts, a.Alert)
		body, ok := entries[a.Alert]
		if !ok {
			t.Errorf("no runbook entry ### %s", a.Alert)
			continue
		}
		for _, part := range []string{"- **Means**:", "- **Look at**:", "- **Do**:"} {
			if !strings.Contains(body, part) {
				t.Errorf("runbook entry %s lacks %q", a.Alert, part)
			}
		}
		if want := chartReadme + "#" + strings.ToLower(a.Alert); !strings.HasSuffix(a.Annotations["runbook_url"], want) {
			t.Errorf("%s: runbook_url %q does not end in %s", a.Alert, a.Annotations["runbook_url"], want)
		}
	}
	for _, name := range order {
		if !slices.Contains(alerts, name) {
			t.Errorf("runbook entry %s names no alert of the rule file", name)
		}
	}
}
