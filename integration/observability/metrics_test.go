package observability

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/paysession/paysession/integration/harness"
)

// metricDef is a metric as the code defines it or the chart README lists it.
type metricDef struct {
	Type   string   // counter, gauge, histogram, summary, kprom (a family of franz-go client metrics); "" unknown
	Labels []string // sorted
}

// codeMetrics finds every metric the connector's code defines, by reading
// the source of connector/ and internal/ (tests excluded):
// prometheus.New<Type>[Vec|Func](Opts{Name: "…"}, labels), prometheus.NewDesc
// ("…", help, labels, …), NewReachability("x") (paysession_x_reachable) and
// kprom.NewMetrics("ns", kprom.Subsystem("s")) (the family ns_s_*).
func codeMetrics(t *testing.T) map[string]metricDef {
	t.Helper()
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]metricDef{}
	fset := token.NewFileSet()
	for _, dir := range []string{"connector", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					for name, def := range metricOfCall(call) {
						out[name] = def
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

var newMetric = regexp.MustCompile(`^New(Counter|Gauge|Histogram|Summary)(Vec|Func)?$`)

// metricOfCall returns the metric a call defines, if any.
func metricOfCall(call *ast.CallExpr) map[string]metricDef {
	pkg, fn := callName(call)
	switch {
	case pkg == "prometheus" && newMetric.MatchString(fn) && len(call.Args) > 0:
		lit, ok := call.Args[0].(*ast.CompositeLit)
		if !ok {
			return nil
		}
		var name string
		var labels []string
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			switch key := kv.Key.(*ast.Ident).Name; key {
			case "Name":
				name = stringLit(kv.Value)
			case "ConstLabels":
				if m, ok := kv.Value.(*ast.CompositeLit); ok {
					for _, e := range m.Elts {
						if kv, ok := e.(*ast.KeyValueExpr); ok {
							labels = append(labels, stringLit(kv.Key))
						}
					}
				}
			}
		}
		if strings.HasSuffix(fn, "Vec") && len(call.Args) > 1 {
			labels = append(labels, stringList(call.Args[1])...)
		}
		if name == "" {
			return nil
		}
		slices.Sort(labels)
		return map[string]metricDef{name: {Type: strings.ToLower(newMetric.FindStringSubmatch(fn)[1]), Labels: labels}}
	case pkg == "prometheus" && fn == "NewDesc" && len(call.Args) > 2:
		name := stringLit(call.Args[0])
		if name == "" {
			return nil
		}
		labels := stringList(call.Args[2])
		slices.Sort(labels)
		return map[string]metricDef{name: {Labels: labels}}
	case fn == "NewReachability" && len(call.Args) > 0 && stringLit(call.Args[0]) != "":
		return map[string]metricDef{"paysession_" + stringLit(call.Args[0]) + "_reachable": {Type: "gauge"}}
	case pkg == "kprom" && fn == "NewMetrics" && len(call.Args) > 0:
		family := stringLit(call.Args[0])
		for _, a := range call.Args[1:] {
			if c, ok := a.(*ast.CallExpr); ok {
				if p, f := callName(c); p == "kprom" && f == "Subsystem" && len(c.Args) == 1 {
					family += "_" + stringLit(c.Args[0])
				}
			}
		}
		return map[string]metricDef{family + "_*": {Type: "kprom"}}
	}
	return nil
}

// callName returns the package and function of pkg.Fn(…), or "" and Fn.
func callName(call *ast.CallExpr) (string, string) {
	switch f := call.Fun.(type) {
	case *ast.SelectorExpr:
		if id, ok := f.X.(*ast.Ident); ok {
			return id.Name, f.Sel.Name
		}
		return "", f.Sel.Name
	case *ast.Ident:
		return "", f.Name
	}
	return "", ""
}

func stringLit(e ast.Expr) string {
	if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
		s, _ := strconv.Unquote(b.Value)
		return s
	}
	return ""
}

func stringList(e ast.Expr) []string {
	lit, ok := e.(*ast.CompositeLit)
	if !ok {
		return nil
	}
	var out []string
	for _, x := range lit.Elts {
		out = append(out, stringLit(x))
	}
	return out
}

// readmeMetrics parses the table of the chart README's Metrics section.
func readmeMetrics(t *testing.T) map[string]metricDef {
	t.Helper()
	section := readmeSectionOf(t, "## Metrics")
	out := map[string]metricDef{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`paysession_") {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		var labels []string
		for _, l := range strings.Split(cells[3], ",") {
			if l = strings.Trim(strings.TrimSpace(l), "`"); l != "" {
				labels = append(labels, l)
			}
		}
		slices.Sort(labels)
		if _, dup := out[name]; dup {
			t.Errorf("the chart README lists %s twice", name)
		}
		out[name] = metricDef{Type: strings.TrimSpace(cells[2]), Labels: labels}
	}
	return out
}

// chartReadme is the document that lists the metrics and holds the runbook:
// the chart's README, beside the alert rules.
const chartReadme = "helm/paysession-connector/README.md"

// readmeSectionOf returns chartReadme's section under heading; t fails when
// it has none.
func readmeSectionOf(t *testing.T, heading string) string {
	t.Helper()
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(chartReadme)))
	if err != nil {
		t.Fatal(err)
	}
	section := readmeSection(string(b), heading)
	if section == "" {
		t.Fatalf("%s has no %s section", chartReadme, heading)
	}
	return section
}

// readmeSection returns the text from heading to the next heading of the
// same or a higher level.
func readmeSection(readme, heading string) string {
	i := strings.Index(readme, "\n"+heading+"\n")
	if i < 0 {
		return ""
	}
	rest := readme[i+len(heading)+2:]
	level := strings.Count(strings.Fields(heading)[0], "#")
	for _, h := range []string{"\n## ", "\n### ", "\n#### "}[:level-1] {
		if j := strings.Index(rest, h); j >= 0 {
			rest = rest[:j]
		}
	}
	return rest
}

// TestREADMEMetricsList: the chart README's metrics table lists exactly the
// metrics the code defines, each with its type and labels.
func TestREADMEMetricsList(t *testing.T) {
	code, readme := codeMetrics(t), readmeMetrics(t)
	if len(code) < 20 {
		t.Fatalf("found only %d metric definitions in the code: the scan is broken", len(code))
	}
	for name, def := range code {
		doc, ok := readme[name]
		switch {
		case !ok:
			t.Errorf("%s (%s, labels %v) is defined in the code but not in the chart README's metrics list", name, def.Type, def.Labels)
		case def.Type != "" && doc.Type != def.Type:
			t.Errorf("%s: the chart README says %s, the code defines a %s", name, doc.Type, def.Type)
		case !slices.Equal(doc.Labels, def.Labels):
			t.Errorf("%s: the chart README labels %v, the code's %v", name, doc.Labels, def.Labels)
		}
	}
	for name := range readme {
		if _, ok := code[name]; !ok {
			t.Errorf("the chart README lists %s, which the code does not define", name)
		}
	}
}

// TestMetricScanFindsEachForm guards the scan: each form of definition the
// connector uses is found, with its labels.
func TestMetricScanFindsEachForm(t *testing.T) {
	src := `package p
func f() {
	prometheus.NewCounterVec(prometheus.CounterOpts{Name: "paysession_a_total", Help: "h"}, []string{"kind", "status"})
	prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "paysession_b"}, nil)
	prometheus.NewGauge(prometheus.GaugeOpts{Name: "paysession_c_info", ConstLabels: prometheus.Labels{"version": v}})
	prometheus.NewHistogram(prometheus.HistogramOpts{Name: "paysession_d_seconds"})
	prometheus.NewDesc("paysession_e", "h", []string{"check"}, nil)
	NewReachability("api", check)
	kprom.NewMetrics("paysession_kafka", kprom.Subsystem("pipeline"), kprom.Registerer(r))
	other.NewCounter(x)
}`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]metricDef{}
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			for k, v := range metricOfCall(call) {
				got[k] = v
			}
		}
		return true
	})
	want := map[string]metricDef{
		"paysession_a_total":          {Type: "counter", Labels: []string{"kind", "status"}},
		"paysession_b":                {Type: "gauge"},
		"paysession_c_info":           {Type: "gauge", Labels: []string{"version"}},
		"paysession_d_seconds":        {Type: "histogram"},
		"paysession_e":                {Labels: []string{"check"}},
		"paysession_api_reachable":    {Type: "gauge"},
		"paysession_kafka_pipeline_*": {Type: "kprom"},
	}
	if len(got) != len(want) {
		t.Errorf("found %v, want %v", got, want)
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g.Type != w.Type || !slices.Equal(g.Labels, w.Labels) {
			t.Errorf("%s: found %+v (%v), want %+v", k, g, ok, w)
		}
	}
}
