package observability

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/paysim"
)

// dashboardVars are the values of the dashboard's variables for the test's
// Prometheus: the labels of its scrape job, and a rate window that holds
// several 1 s scrapes.
var dashboardVars = map[string]string{"namespace": testNamespace, "job": testJob, "__rate_interval": "1m"}

// TestDashboardAndAlertsOnRealPrometheus runs Debian's Prometheus with the
// chart's rule file, scraping an in-process connector under load: payouts
// that finish by webhook, that are confirmed automatically and that stay
// waiting for confirmation (so the reconciler polls), invalid records (dead
// letters), a held webhook slot (503 overloaded), and a sandbox fault (every
// call answered 500) that makes a few commands indeterminate. Then every
// query of every dashboard panel and every series each alert and recording
// rule reads must return data, every rule must evaluate without error,
// PaysessionIndeterminateResults must fire, every paysession_* metric
// scraped must be in the chart README's metrics list, and promtool must
// find nothing to say of /metrics.
func TestDashboardAndAlertsOnRealPrometheus(t *testing.T) {
	harness.Kafka(t) // skips in -short mode
	r := startRig(t)
	ctx := context.Background()

	// Load: each amount class, and invalid records.
	const perClass = 4
	for i := range perClass {
		r.send(t, "INIT_PAYOUT", fmt.Sprintf("obs-small-%02d", i), payout(15000))     // finishes, webhook
		r.send(t, "INIT_PAYOUT", fmt.Sprintf("obs-auto-%02d", i), payout(2_000_000))  // confirmed by the reconciler
		r.send(t, "INIT_PAYOUT", fmt.Sprintf("obs-large-%02d", i), payout(9_000_000)) // waits for confirm: polled
		r.send(t, "INIT_PAYOUT", fmt.Sprintf("obs-bad-%02d", i), `{"amount":"not a number"}`)
	}
	harness.Eventually(t, 60*time.Second, "every command has a result", func() bool {
		return r.metric(t, "paysession_pipeline_commands_total") >= 4*perClass
	})
	harness.Eventually(t, 60*time.Second, "an automatic confirmation and a webhook accepted", func() bool {
		return r.metric(t, "paysession_reconcile_auto_confirms_total") > 0 &&
			r.metric(t, `paysession_webhook_requests_total{type="payment_finished",verdict="accepted"}`) > 0
	})

	// An unverifiable webhook is refused (401) and counted; it holds no
	// publish slot (connector/ingress TestSlowBodiesHoldNoSlot), and the
	// overloaded series exist at 0 from the start for the queries below.
	if code := r.postWebhook(t); code != 401 {
		t.Errorf("unverifiable webhook answered %d, want 401", code)
	}

	// The sandbox fault: every call fails with 500 without running, so the
	// next commands use up their two attempts and end indeterminate; their
	// 24 failures in a row (20 pause) make the pipeline pause fetching by
	// back-pressure until a probe gets an answer.
	if err := r.Sandbox.SetFaults(paysim.Faults{ErrorRate: 1}); err != nil {
		t.Fatal(err)
	}
	before := r.metric(t, `paysession_pipeline_commands_total{kind="init_payout",status="indeterminate"}`)
	const faulted = 12
	for i := range faulted {
		r.send(t, "INIT_PAYOUT", fmt.Sprintf("obs-fault-%02d", i), payout(15000))
	}
	// The pause comes once 20 attempts failed in a row: after the first 10
	// commands (two attempts each) when the 12 records arrive in several
	// polls, and the rest then wait in Kafka (they succeed once the API
	// answers), so at least 10 are indeterminate when fetching pauses.
	const pausedAfter = 20 / 2
	harness.Eventually(t, 60*time.Second, "the faulted commands are indeterminate and fetching paused", func() bool {
		return r.metric(t, `paysession_pipeline_commands_total{kind="init_payout",status="indeterminate"}`) >= before+pausedAfter &&
			r.metric(t, "paysession_pipeline_paused") == 1
	})
	if err := r.Sandbox.SetFaults(paysim.Faults{}); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 60*time.Second, "fetching resumed once the API answers", func() bool {
		return r.metric(t, "paysession_pipeline_paused") == 0
	})

	// From here on a steady trickle of payouts keeps every rate and
	// quantile of the last minute defined while the queries are checked.
	stopLoad := harness.Background(t, "steady load", r.steadyLoad)

	// Everything the dashboard and the rules read has data in Prometheus.
	checks := queriesToCheck(t)
	var missing []string
	for deadline := time.Now().Add(60 * time.Second); ; {
		missing = missing[:0]
		for _, c := range checks {
			got, err := r.prom.Query(ctx, c.expr)
			if err != nil {
				t.Fatalf("%s: %v", c.what, err)
			}
			if !hasNumber(got) {
				missing = append(missing, c.what+": "+c.expr)
			}
		}
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s, %d of %d queries still return no data:\n%s", len(missing), len(checks), strings.Join(missing, "\n"))
		}
		time.Sleep(500 * time.Millisecond) // poll interval of the condition, as harness.Eventually's
	}
	t.Logf("%d queries returned data", len(checks))

	harness.Eventually(t, 60*time.Second, "PaysessionIndeterminateResults fires", func() bool {
		alerts, err := r.prom.Alerts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(alerts, func(a Alert) bool {
			return a.Labels["alertname"] == "PaysessionIndeterminateResults" && a.State == "firing" &&
				a.Labels["namespace"] == testNamespace && a.Labels["job"] == testJob
		})
	})

	if err := stopLoad(); err != nil {
		t.Error(err)
	}
	rules, err := r.prom.Rules(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range rules {
		if rule.Health != "ok" {
			t.Errorf("rule %s: health %q, %s", rule.Name, rule.Health, rule.LastError)
		}
	}
	checkScrapedMetricsListed(t, r)
	checkMetricsLint(t, r)

	resp, err := http.Get("http://" + r.conn.OpsAddr() + "/debug/pprof/heap?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /debug/pprof/heap with PAYSESSION_METRICS_PPROF=true: %d", resp.StatusCode)
	}
}

// hasNumber reports whether an answer has a sample that is a number: a
// quantile of no observations is NaN, which a panel shows as empty.
func hasNumber(samples []Sample) bool {
	return slices.ContainsFunc(samples, func(s Sample) bool {
		v, ok := s.Value[1].(string)
		return ok && v != "NaN"
	})
}

// check is one expression that must return data.
type check struct{ what, expr string }

// queriesToCheck returns every dashboard query (variables expanded), every
// series each recording rule and alert reads (Selectors), and every alert
// expression itself, which must evaluate (its answer may be empty: it has
// data only while firing).
func queriesToCheck(t *testing.T) []check {
	t.Helper()
	dashPath, err := ChartFile("dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	panels, err := LoadDashboardQueries(dashPath)
	if err != nil {
		t.Fatal(err)
	}
	var out []check
	for _, p := range panels {
		expr, err := ExpandVariables(p.Expr, dashboardVars)
		if err != nil {
			t.Fatalf("panel %q: %v", p.Panel, err)
		}
		out = append(out, check{what: fmt.Sprintf("panel %q query %s", p.Panel, p.RefID), expr: expr})
	}
	rulesPath, err := ChartFile("prometheus-rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rules, err := LoadRules(rulesPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range rules.Groups {
		for _, rule := range g.Rules {
			name := rule.Record + rule.Alert
			sels := Selectors(rule.Expr)
			if len(sels) == 0 {
				t.Errorf("rule %s reads no series of ours", name)
			}
			for _, s := range sels {
				out = append(out, check{what: "rule " + name + " reads", expr: s})
			}
		}
	}
	return out
}

// checkScrapedMetricsListed: every paysession_* metric Prometheus scraped
// from the running connector is in the chart README's metrics list (by name or
// by a kprom family prefix).
func checkScrapedMetricsListed(t *testing.T, r *rig) {
	t.Helper()
	got, err := r.prom.Query(context.Background(), `count by (__name__) ({__name__=~"paysession_.+", job="`+testJob+`"})`)
	if err != nil {
		t.Fatal(err)
	}
	listed := readmeMetrics(t)
	var unlisted []string
	for _, s := range got {
		name := s.Metric["__name__"]
		if isListed(name, listed) {
			continue
		}
		unlisted = append(unlisted, name)
	}
	sort.Strings(unlisted)
	if len(unlisted) > 0 {
		t.Errorf("scraped but not in the chart README's metrics list: %v", unlisted)
	}
	if len(got) < 20 {
		t.Errorf("only %d paysession_* metrics scraped", len(got))
	}
}

// checkMetricsLint runs `promtool check metrics` on the connector's
// /metrics, after the load made every family appear: it fails on a name
// against Prometheus' conventions (a gauge with a counter's _total suffix, a
// counter without it, a unit missing) and on a family without help.
func checkMetricsLint(t *testing.T, r *rig) {
	t.Helper()
	bins, err := EnsurePrometheus(context.Background(), logger(t))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + r.conn.OpsAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	cmd := exec.Command(bins.Promtool, "check", "metrics")
	cmd.Stdin = resp.Body
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics on /metrics: %v\n%s", err, out)
	}
}

// isListed reports whether a scraped series name is a listed metric, one of
// a listed histogram's series, or of a listed family (name_*).
func isListed(name string, listed map[string]metricDef) bool {
	if _, ok := listed[name]; ok {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if def, ok := listed[strings.TrimSuffix(name, suffix)]; ok && def.Type == "histogram" {
			return true
		}
	}
	for l := range listed {
		if prefix, ok := strings.CutSuffix(l, "*"); ok && strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}
