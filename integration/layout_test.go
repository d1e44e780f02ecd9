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

// The package rules of ARCHITECTURE.md, enforced on the import graph that go list reports. A
// package that does not exist yet has nothing to check.

const module = "github.com/paysession/paysession"

// importRule forbids packages at or under From to import anything at or under one of Forbid.
type importRule struct {
	Why        string
	From       string   // package path relative to the module
	Forbid     []string // import paths (see own for this module's packages)
	Transitive bool     // also check everything the package depends on, not just its own imports
	Tests      bool     // also check the direct imports of the package's tests
}

var importRules = []importRule{
	{Why: "the data path reads top-down: internal never reaches up into the engine",
		From: "internal", Forbid: []string{own("connector")}, Transitive: true, Tests: true},
	{Why: "the sandbox and the client meet only on the wire, so each checks the other",
		From: "internal/paysim", Forbid: []string{own("internal/payapi"), own("internal/sensitive")}, Transitive: true, Tests: true},
	{Why: "the sandbox's main runs the sandbox, never the client",
		From: "cmd/paysim", Forbid: []string{own("internal/payapi")}, Transitive: true, Tests: true},
	{Why: "the client knows nothing of Kafka",
		From: "internal/payapi", Forbid: []string{"github.com/twmb/franz-go"}, Transitive: true, Tests: true},
	{Why: "the codec knows nothing of HTTP (the registry client's own use of it is its business)",
		From: "internal/codec", Forbid: []string{"net/http"}},
}

// listedPackage is the part of go list -json output the rules read.
type listedPackage struct {
	ImportPath   string
	Imports      []string
	Deps         []string
	TestImports  []string
	XTestImports []string
}

func TestImportRules(t *testing.T) {
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,Deps,TestImports,XTestImports", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs, err := decodePackages(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	for _, v := range violations(pkgs, importRules) {
		t.Error(v)
	}
}

func TestImportRulesCatchViolations(t *testing.T) {
	pkgs := []listedPackage{
		{ImportPath: module + "/internal/paysim/ledger", Deps: []string{"fmt", module + "/internal/payapi"}},
		{ImportPath: module + "/internal/payapi", TestImports: []string{"github.com/twmb/franz-go/pkg/kgo"}},
		{ImportPath: module + "/internal/codec", Imports: []string{"net/http/httptest"}},
		{ImportPath: module + "/internal/codec", Deps: []string{"net/http"}}, // transitive: allowed
		{ImportPath: module + "/internal/config", Imports: []string{module + "/connectors"}},
		{ImportPath: module + "/cmd/paysim", Imports: []string{module + "/internal/paysim"}},
	}
	got := violations(pkgs, importRules)
	want := []string{
		"internal/paysim/ledger imports internal/payapi",
		"internal/payapi imports github.com/twmb/franz-go/pkg/kgo",
		"internal/codec imports net/http/httptest",
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

// violations returns one line per forbidden import, naming the rule it breaks.
func violations(pkgs []listedPackage, rules []importRule) []string {
	var out []string
	for _, p := range pkgs {
		rel := strings.TrimPrefix(p.ImportPath, module+"/")
		for _, r := range rules {
			if !under(rel, r.From) {
				continue
			}
			for _, imp := range checkedImports(p, r) {
				for _, f := range r.Forbid {
					if under(imp, f) {
						out = append(out, rel+" imports "+strings.TrimPrefix(imp, module+"/")+": "+r.Why)
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
