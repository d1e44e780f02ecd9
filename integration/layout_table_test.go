package integration

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paysession/paysession/integration/harness"
)

// The package table: the repository's maintained version of ARCHITECTURE.md's package
// boundaries. It is the single source of connector/README.md's "Package layout" section and of what
// layout_test.go enforces on the import graph.
//
// A pattern names import paths. This module's packages are written relative to the module
// ("internal/codec"), other modules' in full ("github.com/twmb/franz-go/pkg/kgo"). A pattern
// ending in "/..." covers that path and everything under it; any other pattern is exactly one
// package. Three words are not paths: stdlib (the standard library), cgo (import "C") and
// anything.

// packageRow is one row of the table: the packages it covers, what they own and what their
// non-test code may import. Not carves imports out of May where May is broader than the rule.
type packageRow struct {
	Pkg  string
	Owns string
	May  []string
	Not  []string
}

const (
	franz    = "github.com/twmb/franz-go/..."
	prom     = "github.com/prometheus/client_golang/..."
	otel     = "go.opentelemetry.io/otel/..."
	xsync    = "golang.org/x/sync/..."
	xall     = "golang.org/x/..."
	internal = "internal/..."
)

var packageTable = []packageRow{
	{Pkg: "cmd/connector", Owns: "the product's main: subcommands (`run`, `demo`, `config`, `check`, `produce`, `tail`, `lookup`, `topics`, `redrive`, `inspect`, `pause`, `resume`, `status`), flags, exit codes",
		May: []string{"stdlib", "connector/...", internal, "schemas", franz, "github.com/sethvargo/go-envconfig"}},
	{Pkg: "cmd/paysim", Owns: "the sandbox's main",
		May: []string{"stdlib", "internal/paysim", "internal/signing"}},
	{Pkg: "connector", Owns: "the engine's composition: wiring of clients, lifecycle and stop order, `/healthz` `/readyz` `/metrics`",
		May: []string{"stdlib", "connector/...", internal, franz, prom, "github.com/prometheus/client_model/go", otel, xsync}},
	{Pkg: "connector/pipeline", Owns: "command pipeline: consume → decode → validate → call → outcome, transactional",
		May: []string{"stdlib", "connector/sessionstate", "connector/sessionwriter", "connector/topics", internal, franz, prom, otel, xall}},
	{Pkg: "connector/ingress", Owns: "webhook HTTP endpoint",
		May: []string{"stdlib", "connector/sessionstate", "connector/sessionwriter", internal, franz, prom, otel, xall}},
	{Pkg: "connector/reconcile", Owns: "polls quiet sessions, confirmation policy",
		May: []string{"stdlib", "connector/sessionstate", "connector/sessionwriter", internal, franz, prom, otel, xall}},
	{Pkg: "connector/sessionwriter", Owns: "the one writer of the session and webhook-event topics, per partition",
		May: []string{"stdlib", "connector/sessionstate", internal, franz, prom, otel, xall}},
	{Pkg: "connector/publish", Owns: "periodic wallet-balance and FPS-bank publishers",
		May: []string{"stdlib", internal, franz, prom, otel, xall}},
	{Pkg: "connector/sessionstate", Owns: "API session → masked outcome snapshot",
		May: []string{"stdlib", internal, franz, prom, otel, xall}},
	{Pkg: "connector/topics", Owns: "creating and checking the connector's topics",
		May: []string{"stdlib", internal, franz, prom, otel, xall}},
	{Pkg: "connector/control", Owns: "operators' pause and resume: the control topic's records, followed by every replica",
		May: []string{"stdlib", franz, prom}},
	{Pkg: "connector/redrive", Owns: "re-publishing dead letters to their source topics",
		May: []string{"stdlib", internal, franz}},
	{Pkg: "connector/lookup", Owns: "what the topics hold of one command; bounded reading of topics (lookup, tail)",
		May: []string{"stdlib", "connector/kit", internal, franz}},
	{Pkg: "connector/preflight", Owns: "the check of everything a start needs, one problem per line",
		May: []string{"stdlib", "connector", "connector/topics", internal, franz, "github.com/sethvargo/go-envconfig"}},
	{Pkg: "connector/kit", Owns: "public Go package of the topics: encode commands, decode outcomes, newest state per session, webhook dedupe",
		May: []string{"stdlib", "internal/codec", "internal/fifo", "internal/sensitive", "schemas", franz}},
	{Pkg: "internal/payapi", Owns: "typed API client: every endpoint, signing of requests, error classes",
		May: []string{"stdlib", "internal/signing", "internal/sensitive", "internal/tracing", otel,
			"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"}},
	{Pkg: "internal/paysim", Owns: "the sandbox: a simulator of the whole service",
		May: []string{"stdlib", "internal/signing"}},
	{Pkg: "internal/signing", Owns: "RSA-SHA256 sign/verify, PEM key loading (libcrypto variant with `-tags libcrypto`), the gate bounding signatures at once",
		May: []string{"stdlib", "cgo"}},
	{Pkg: "internal/codec", Owns: "Avro/JSON encoding of commands and outcomes, registry, single-object encoding, masking; the order of two session states and its horizon. " +
		"Avro by `github.com/twmb/avro`: maintained, by franz-go's author, and its decoding is bounded in time and memory by " +
		"the record's size (it replaced the archived `hamba/avro`, whose decoder one 189-byte command could spin forever). " +
		"Strict JSON by `github.com/go-json-experiment/json`, the module form of the standard library's `encoding/json/v2`",
		May: []string{"stdlib", "github.com/twmb/avro", "github.com/twmb/franz-go/pkg/sr", "github.com/go-json-experiment/json/...", "schemas", "internal/fifo", "internal/sensitive", xsync},
		Not: []string{"net/http/..."}},
	{Pkg: "internal/config", Owns: "environment configuration and its validation (describes; does not build clients)",
		May: []string{"stdlib", "github.com/sethvargo/go-envconfig", "internal/fields", "schemas"}},
	{Pkg: "internal/kafka", Owns: "Kafka client options and the pieces the connector's parts share",
		May: []string{"stdlib", "internal/config", franz}},
	{Pkg: "internal/header", Owns: "the connector's record header names and a record's original time",
		May: []string{"stdlib", "github.com/twmb/franz-go/pkg/kgo"}},
	{Pkg: "internal/outbound", Owns: "the Encoder and Producer through which the connector's writers put outcome records on Kafka, and the Sizer that fits each record to its topic's limit",
		May: []string{"stdlib", "internal/codec", "internal/header", "github.com/twmb/franz-go/pkg/kgo", "github.com/twmb/franz-go/pkg/kerr", prom}},
	{Pkg: "internal/fifo", Owns: "a first-in-first-out set with expiry (webhook dedupe in the ingress and the kit, the codec's refused schema ids)",
		May: []string{"stdlib"}},
	{Pkg: "internal/retry", Owns: "one doubling wait for restarts and poll backoff",
		May: []string{"stdlib"}},
	{Pkg: "internal/fields", Owns: "component-config helpers: defaults for zero values, errors that name their field",
		May: []string{"stdlib"}},
	{Pkg: "internal/sensitive", Owns: "card number / security code types that mask themselves",
		May: []string{"stdlib"}},
	{Pkg: "internal/logging", Owns: "slog with redaction and trace ids",
		May: []string{"stdlib", "internal/sensitive", "go.opentelemetry.io/otel/trace"}},
	{Pkg: "internal/tracing", Owns: "the OpenTelemetry tracer provider and W3C helpers",
		May: []string{"stdlib", otel}},
	{Pkg: "internal/tracing/kafkatrace", Owns: "trace context in record headers, kotel hooks",
		May: []string{"stdlib", "internal/tracing", "github.com/twmb/franz-go/pkg/kgo", "github.com/twmb/franz-go/plugin/kotel", otel}},
	{Pkg: "schemas", Owns: "`.avsc` files and the Go file that embeds them",
		May: []string{"stdlib"}},
	{Pkg: "helm", Owns: "the Helm chart and its tests (no non-test code)"},
	{Pkg: "integration/...", Owns: "end-to-end tests and their harness (broker, registry, processes)",
		May: []string{"anything"}},
}

// importRule forbids the packages From covers to import anything Forbid covers, with the reason.
// The table already forbids each of these arrows (TestImportRulesFollowFromTable); a rule adds
// its reason and, where marked, checks more than the table does.
type importRule struct {
	Why        string
	From       string
	Forbid     []string
	Transitive bool // also check everything the package depends on, not just its own imports
	Tests      bool // also check the direct imports of the package's tests
}

var importRules = []importRule{
	{Why: "the data path reads top-down: internal never reaches up into the engine",
		From: internal, Forbid: []string{"connector/..."}, Transitive: true, Tests: true},
	{Why: "the sandbox and the client meet only on the wire, so each checks the other (the sandbox keeps its own Luhn check)",
		From: "internal/paysim/...", Forbid: []string{"internal/payapi/...", "internal/sensitive/..."}, Transitive: true, Tests: true},
	{Why: "the sandbox's main runs the sandbox, never the client",
		From: "cmd/paysim/...", Forbid: []string{"internal/payapi/..."}, Transitive: true, Tests: true},
	{Why: "the client knows nothing of Kafka",
		From: "internal/payapi/...", Forbid: []string{franz}, Transitive: true, Tests: true},
	{Why: "the codec knows nothing of HTTP (the registry client's own use of it is its business)",
		From: "internal/codec/...", Forbid: []string{"net/http/..."}},
	{Why: "the Avro schemas are the codec's: the engine encodes and decodes through internal/codec",
		From: "connector", Forbid: []string{"schemas/..."}},
	{Why: "configuration describes and does not build clients, so it needs no client library",
		From: "internal/config/...", Forbid: []string{franz, "internal/signing/...", "internal/logging/..."}},
}

var update = flag.Bool("update", false, "rewrite connector/README.md's Package layout section from the package table")

// layoutDoc is the document whose Package layout section the table generates.
const layoutDoc = "connector/README.md"

const layoutHeading = "## Package layout"

// TestPackageLayoutInReadme keeps layoutDoc's Package layout section equal to the table.
func TestPackageLayoutInReadme(t *testing.T) {
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, filepath.FromSlash(layoutDoc))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start, end, ok := sectionBounds(readme, layoutHeading)
	if !ok {
		t.Fatalf("%s has no %q section; add the heading and run with -update", layoutDoc, layoutHeading)
	}
	want := renderLayout(packageTable, importRules)
	if readme[start:end] == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(readme[:start]+want+readme[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's %q section differs from the package table (integration/layout_table_test.go); "+
		"run go test ./integration/ -run TestPackageLayoutInReadme -update, or make it:\n%s", layoutDoc, layoutHeading, want)
}

// sectionBounds returns where the level-2 section headed heading starts and where the next
// level-2 section (or the file) begins.
func sectionBounds(text, heading string) (start, end int, ok bool) {
	i := strings.Index(text, "\n"+heading+"\n")
	if i < 0 {
		return 0, 0, false
	}
	start = i + 1
	if j := strings.Index(text[start+len(heading):], "\n## "); j >= 0 {
		return start, start + len(heading) + j + 1, true
	}
	return start, len(text), true
}

// renderLayout renders the table and the rules as layoutDoc's Package layout section.
func renderLayout(rows []packageRow, rules []importRule) string {
	var b strings.Builder
	b.WriteString(layoutHeading + "\n")
	b.WriteString("Which package may import which. `integration/layout_test.go` fails on a package with no row\n" +
		"and on any import of non-test code that its row does not list (for the default build and\n" +
		"`-tags libcrypto`); this section is generated from its table (`-update` rewrites it).\n" +
		"A path ending in `/...` covers the packages under it.\n\n")
	b.WriteString("| package | owns | may import |\n|---|---|---|\n")
	for _, r := range rows {
		mayImport := renderPatterns(r.May)
		if len(r.Not) > 0 {
			mayImport += "; not " + renderPatterns(r.Not)
		}
		b.WriteString("| `" + r.Pkg + "` | " + r.Owns + " | " + mayImport + " |\n")
	}
	b.WriteString("\nThe rules behind the table, each checked on its own:\n")
	for _, r := range rules {
		scope := ""
		switch {
		case r.Transitive && r.Tests:
			scope = ", even through its dependencies or in its tests"
		case r.Transitive:
			scope = ", even through its dependencies"
		case r.Tests:
			scope = ", even in its tests"
		}
		b.WriteString("- `" + r.From + "` never imports " + strings.ReplaceAll(renderPatterns(r.Forbid), ", ", " or ") +
			scope + ": " + r.Why + ".\n")
	}
	b.WriteString("\n")
	return b.String()
}

func renderPatterns(patterns []string) string {
	if len(patterns) == 0 {
		return "nothing"
	}
	out := make([]string, len(patterns))
	for i, p := range patterns {
		switch p {
		case "stdlib", "anything":
			out[i] = p
		case "cgo":
			out[i] = "cgo (`import \"C\"`)"
		default:
			out[i] = "`" + p + "`"
		}
	}
	return strings.Join(out, ", ")
}
