package integration

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/paysession/paysession/integration/harness"
)

// The package table (layout_table_test.go) enforced on the import graph that go list reports,
// for the default build and for every build tag that changes a package's imports.

const module = "github.com/paysession/paysession"

// buildTags are the tag sets the import graph is listed for: the default build and the
// libcrypto variant of internal/signing (cgo).
var buildTags = []string{"", "libcrypto"}

// listedPackage is the part of go list -json output the checks read.
type listedPackage struct {
	ImportPath   string
	Imports      []string
	Deps         []string
	TestImports  []string
	XTestImports []string
}

func TestImportRules(t *testing.T) {
	var found []string
	for _, tags := range buildTags {
		pkgs := listPackages(t, tags)
		found = append(found, tableViolations(pkgs, packageTable)...)
		found = append(found, violations(pkgs, importRules)...)
	}
	slices.Sort(found)
	for _, v := range slices.Compact(found) {
		t.Error(v)
	}
}

// TestImportRulesFollowFromTable checks that no row allows an import a rule forbids: the rules
// give reasons, the table is the whole truth.
func TestImportRulesFollowFromTable(t *testing.T) {
	for _, r := range importRules {
		for _, row := range packageTable {
			if !overlaps(patternPath(r.From), patternPath(row.Pkg)) {
				continue
			}
			for _, f := range r.Forbid {
				if rowAdmits(row, patternPath(f)) {
					t.Errorf("row %s allows %s, which the rule on %s forbids (%s)", row.Pkg, f, r.From, r.Why)
				}
			}
		}
	}
}

func TestPackageTableCatchesViolations(t *testing.T) {
	for _, tc := range []struct {
		name string
		pkg  string
		imp  string
		want string // the start of the violation; empty when the import is allowed
	}{
		{"config imports franz-go", "internal/config", "github.com/twmb/franz-go/pkg/kgo",
			"internal/config imports github.com/twmb/franz-go/pkg/kgo: not in row internal/config"},
		{"config imports go-envconfig", "internal/config", "github.com/sethvargo/go-envconfig", ""},
		{"connector imports schemas", "connector", own("schemas"), "connector imports schemas: not in row connector"},
		{"connector imports a connector package", "connector", own("connector/redrive"), ""},
		{"kit reads the configuration", "connector/kit", own("internal/config"), "connector/kit imports internal/config: not in row connector/kit"},
		{"kit reaches the API client's mapping", "connector/kit", own("connector/sessionstate"), "connector/kit imports connector/sessionstate: not in row connector/kit"},
		{"kit imports the codec", "connector/kit", own("internal/codec"), ""},
		{"kit imports the pipeline", "connector/kit", own("connector/pipeline"), "connector/kit imports connector/pipeline: not in row connector/kit"},
		{"payapi imports franz-go", "internal/payapi", "github.com/twmb/franz-go/pkg/kgo",
			"internal/payapi imports github.com/twmb/franz-go/pkg/kgo: not in row internal/payapi"},
		{"payapi imports otelhttp", "internal/payapi", "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp", ""},
		{"paysim imports payapi", "internal/paysim", own("internal/payapi"), "internal/paysim imports internal/payapi: not in row internal/paysim"},
		{"paysim imports sensitive", "internal/paysim", own("internal/sensitive"), "internal/paysim imports internal/sensitive: not in row"},
		{"pipeline imports a sibling it lists", "connector/pipeline", own("connector/sessionwriter"), ""},
		{"pipeline imports a new sibling", "connector/pipeline", own("connector/reconcile"),
			"connector/pipeline imports connector/reconcile: not in row connector/pipeline"},
		{"redrive imports a sibling", "connector/redrive", own("connector/topics"), "connector/redrive imports connector/topics: not in row"},
		{"a connector part imports the engine", "connector/publish", own("connector"), "connector/publish imports connector: not in row"},
		{"codec imports net/url", "internal/codec", "net/url", ""},
		{"codec imports net/http", "internal/codec", "net/http", "internal/codec imports net/http: not in row internal/codec"},
		{"codec imports httptest", "internal/codec", "net/http/httptest", "internal/codec imports net/http/httptest: not in row"},
		{"signing uses cgo", "internal/signing", "C", ""},
		{"fields uses cgo", "internal/fields", "C", "internal/fields imports C: not in row internal/fields"},
		{"schemas imports the codec", "schemas", own("internal/codec"), "schemas imports internal/codec: not in row schemas"},
		{"sandbox main imports the client", "cmd/paysim", own("internal/payapi"), "cmd/paysim imports internal/payapi: not in row"},
		{"an integration suite imports anything", "integration/new/suite", "k8s.io/api/core/v1", ""},
		{"a new package has no row", "connector/newpart", "fmt", "connector/newpart: no row in the package table"},
		{"a new internal package has no row", "internal/payapi/v3", "fmt", "internal/payapi/v3: no row in the package table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tableViolations([]listedPackage{{ImportPath: own(tc.pkg), Imports: []string{tc.imp}}}, packageTable)
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("got violations %q, want none", got)
			case tc.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.want)):
				t.Errorf("got violations %q, want one starting with %q", got, tc.want)
			}
		})
	}
}

// TestPackageTableIgnoresTestImports: a package's tests may import more than its code (the
// rules still check them where they say so).
func TestPackageTableIgnoresTestImports(t *testing.T) {
	pkgs := []listedPackage{{ImportPath: own("internal/codec"), TestImports: []string{own("internal/logging")},
		XTestImports: []string{"github.com/twmb/franz-go/pkg/sr/srfake"}}}
	if got := tableViolations(pkgs, packageTable); len(got) > 0 {
		t.Errorf("got violations %q, want none", got)
	}
}

func TestImportRulesCatchViolations(t *testing.T) {
	pkgs := []listedPackage{
		{ImportPath: own("internal/paysim/ledger"), Deps: []string{"fmt", own("internal/payapi")}},
		{ImportPath: own("internal/payapi"), TestImports: []string{"github.com/twmb/franz-go/pkg/kgo"}},
		{ImportPath: own("internal/codec"), Imports: []string{"net/http/httptest"}},
		{ImportPath: own("internal/codec"), Deps: []string{"net/http"}}, // transitive: allowed
		{ImportPath: own("internal/config"), Imports: []string{own("connectors")}},
		{ImportPath: own("cmd/paysim"), Imports: []string{own("internal/paysim")}},
		{ImportPath: own("connector"), Imports: []string{own("schemas")}},
		{ImportPath: own("connector"), Deps: []string{own("schemas")}}, // through the codec: allowed
		{ImportPath: own("connector/kit"), Imports: []string{own("schemas")}},
		{ImportPath: own("internal/tracing"), XTestImports: []string{own("connector/pipeline")}},
	}
	got := violations(pkgs, importRules)
	want := []string{
		"internal/paysim/ledger imports internal/payapi",
		"internal/payapi imports github.com/twmb/franz-go/pkg/kgo",
		"internal/codec imports net/http/httptest",
		"connector imports schemas",
		"internal/tracing imports connector/pipeline",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d violations, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("violation %d = %q, want it to start with %q", i, got[i], want[i])
		}
	}
}

// listPackages lists this module's packages with the build tags given.
func listPackages(t *testing.T, tags string) []listedPackage {
	t.Helper()
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-e", "-tags="+tags, "-json=ImportPath,Imports,Deps,TestImports,XTestImports", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -tags=%q: %v\n%s", tags, err, stderr.String())
	}
	pkgs, err := decodePackages(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) == 0 {
		t.Fatalf("go list -tags=%q found no packages", tags)
	}
	return pkgs
}

// tableViolations returns one line per package with no row and per non-test import that the
// package's row does not allow.
func tableViolations(pkgs []listedPackage, rows []packageRow) []string {
	var out []string
	for _, p := range pkgs {
		rel := relative(p.ImportPath)
		row, ok := rowOf(rel, rows)
		if !ok {
			out = append(out, rel+": no row in the package table (integration/layout_table_test.go); add one (-update rewrites connector/README.md)")
			continue
		}
		for _, imp := range p.Imports {
			if !rowAdmits(row, imp) {
				out = append(out, rel+" imports "+relative(imp)+": not in row "+row.Pkg+
					" (may import: "+strings.Join(row.May, ", ")+notClause(row)+")")
			}
		}
	}
	return out
}

func notClause(row packageRow) string {
	if len(row.Not) == 0 {
		return ""
	}
	return "; not " + strings.Join(row.Not, ", ")
}

// rowOf returns the row for the package at rel: the row naming it exactly, else the row with
// the longest "/..." pattern that covers it.
func rowOf(rel string, rows []packageRow) (packageRow, bool) {
	var best packageRow
	found := false
	for _, r := range rows {
		if r.Pkg == rel {
			return r, true
		}
		if base, ok := strings.CutSuffix(r.Pkg, "/..."); ok && under(rel, base) && (!found || len(r.Pkg) > len(best.Pkg)) {
			best, found = r, true
		}
	}
	return best, found
}

// rowAdmits reports whether the row allows importing imp, a full import path (or, for the
// consistency check, a pattern made full by patternPath): it must meet one of May's patterns
// and none of Not's.
func rowAdmits(row packageRow, imp string) bool {
	return slices.ContainsFunc(row.May, func(p string) bool { return allows(p, imp) }) &&
		!slices.ContainsFunc(row.Not, func(p string) bool { return allows(p, imp) })
}

// allows reports whether pattern covers the full import path imp.
func allows(pattern, imp string) bool {
	switch pattern {
	case "anything":
		return true
	case "stdlib":
		return imp != "C" && !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".")
	case "cgo":
		return imp == "C"
	}
	return overlaps(patternPath(pattern), imp)
}

// overlaps reports whether two full patterns (or import paths) cover a common package.
func overlaps(a, b string) bool {
	baseA, prefixA := strings.CutSuffix(a, "/...")
	baseB, prefixB := strings.CutSuffix(b, "/...")
	return baseA == baseB || prefixA && under(baseB, baseA) || prefixB && under(baseA, baseB)
}

// patternPath returns the full form of a pattern: one that starts with a top-level directory of
// a row (cmd, connector, internal, ...) is this module's, any other is a standard-library or
// other module's path already.
func patternPath(pattern string) string {
	top, _, _ := strings.Cut(pattern, "/")
	for _, r := range packageTable {
		if rowTop, _, _ := strings.Cut(r.Pkg, "/"); rowTop == top {
			return own(pattern)
		}
	}
	return pattern
}

// violations returns one line per import a rule forbids, naming the rule's reason.
func violations(pkgs []listedPackage, rules []importRule) []string {
	var out []string
	for _, p := range pkgs {
		rel := relative(p.ImportPath)
		for _, r := range rules {
			if !overlaps(patternPath(r.From), p.ImportPath) {
				continue
			}
			for _, imp := range checkedImports(p, r) {
				for _, f := range r.Forbid {
					if overlaps(patternPath(f), imp) {
						out = append(out, rel+" imports "+relative(imp)+": "+r.Why)
					}
				}
			}
		}
	}
	return out
}

func checkedImports(p listedPackage, r importRule) []string {
	imps := slices.Clone(p.Imports)
	if r.Transitive {
		imps = append(imps, p.Deps...)
	}
	if r.Tests {
		imps = append(append(imps, p.TestImports...), p.XTestImports...)
	}
	slices.Sort(imps)
	return slices.Compact(imps)
}

// under reports whether path is prefix or inside it.
func under(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// own returns the import path of this module's package at rel.
func own(rel string) string { return module + "/" + rel }

// relative returns an import path of this module relative to the module, others unchanged.
func relative(imp string) string { return strings.TrimPrefix(imp, module+"/") }

func decodePackages(out []byte) ([]listedPackage, error) {
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs, nil
		}
		if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
}
