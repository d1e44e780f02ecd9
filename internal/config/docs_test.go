package config_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paysession/paysession/internal/config"
)

var update = flag.Bool("update", false, "rewrite testdata/variables.md and README.md's configuration table from config.Variables")

// TestVariablesDoc keeps testdata/variables.md (the configuration table of
// this package's README.md) in step with the code; go test -run VariablesDoc
// -update refreshes it and the README's table.
func TestVariablesDoc(t *testing.T) {
	var b strings.Builder
	b.WriteString(config.VariablesTable())
	golden := filepath.Join("testdata", "variables.md")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		readme, err := os.ReadFile("README.md")
		if err != nil {
			t.Fatal(err)
		}
		start, end, ok := tableBounds(string(readme))
		if !ok {
			t.Fatalf("README.md has no configuration table (a line %q) to rewrite", tableHeader)
		}
		if err := os.WriteFile("README.md", []byte(string(readme)[:start]+b.String()+string(readme)[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != b.String() {
		t.Errorf("%s is stale; run go test ./internal/config -run VariablesDoc -update", golden)
	}
}

// tableHeader is the first line of the configuration table.
const tableHeader = "| variable | default | meaning |\n"

// tableBounds returns where the configuration table of readme starts (its
// header line) and ends (after its last row).
func tableBounds(readme string) (start, end int, ok bool) {
	start = strings.Index(readme, tableHeader)
	if start < 0 || (start > 0 && readme[start-1] != '\n') {
		return 0, 0, false
	}
	end = start
	for end < len(readme) && readme[end] == '|' {
		nl := strings.IndexByte(readme[end:], '\n')
		if nl < 0 {
			return start, len(readme), true
		}
		end += nl + 1
	}
	return start, end, true
}

// TestREADMEConfigurationTable: this package's README.md holds
// testdata/variables.md, row for row, so the two cannot drift.
func TestREADMEConfigurationTable(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "variables.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	start, end, ok := tableBounds(string(readme))
	if !ok || string(readme)[start:end] != string(want) {
		t.Errorf("internal/config/README.md's configuration table differs from %s; run go test ./internal/config -run VariablesDoc -update",
			filepath.Join("internal", "config", "testdata", "variables.md"))
	}
}
