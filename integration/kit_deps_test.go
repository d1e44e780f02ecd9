package integration

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paysession/paysession/integration/harness"
)

// kitBase is what connector/kit may bring into a consumer's build: the codec and the schemas,
// franz-go's client and registry packages, and whatever those import.
var kitBase = []string{module + "/internal/codec", module + "/schemas",
	"github.com/twmb/franz-go/pkg/kgo", "github.com/twmb/franz-go/pkg/sr"}

// TestKitBuildsOnlyOnTheCodecSchemasAndFranzGo lists the packages the ledger example module
// (integration/examples/ledger-go, a consumer of connector/kit in a module of its own) builds,
// as go list -deps reports them, and fails on any package outside the standard library that is
// neither the module's own, nor the kit, nor in kitBase's dependencies: a consumer that decodes
// outcomes must not build the connector, its API client, OpenTelemetry or gRPC.
func TestKitBuildsOnlyOnTheCodecSchemasAndFranzGo(t *testing.T) {
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{module + "/connector/kit": true}
	for _, p := range nonStandardDeps(t, root, kitBase...) {
		allowed[p] = true
	}
	ledger := nonStandardDeps(t, filepath.Join(root, "integration", "examples", "ledger-go"), "./...")
	n := 0
	for _, p := range ledger {
		if strings.HasPrefix(p, module) || !strings.HasPrefix(p, "example.com/") {
			n++
			if !allowed[p] {
				t.Errorf("the ledger example builds %s, which connector/kit must not bring in", p)
			}
		}
	}
	t.Logf("the ledger example builds %d packages outside the standard library and its own module", n)
}

// nonStandardDeps returns the packages outside the standard library that go list -deps reports
// for patterns, run in dir.
func nonStandardDeps(t *testing.T, dir string, patterns ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}"}, patterns...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %v in %s: %v\n%s", patterns, dir, err, stderr.String())
	}
	return strings.Fields(string(out))
}
