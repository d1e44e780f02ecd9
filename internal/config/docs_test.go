package config_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paysession/paysession/internal/config"
)

var update = flag.Bool("update", false, "rewrite testdata/variables.md from config.Variables")

// TestVariablesDoc keeps testdata/variables.md (the README's configuration
// table) in step with the code; refresh with go test -run VariablesDoc -update.
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
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != b.String() {
		t.Errorf("%s is stale; run go test ./internal/config -run VariablesDoc -update", golden)
	}
}

// TestREADMEConfigurationTable: the README's configuration table is
// testdata/variables.md, row for row, so the two cannot drift.
func TestREADMEConfigurationTable(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "variables.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), string(want)) {
		t.Errorf("README.md's configuration table differs from %s; copy that file's table into the README's Configuration section",
			filepath.Join("internal", "config", "testdata", "variables.md"))
	}
}
