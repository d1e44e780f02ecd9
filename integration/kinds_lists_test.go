package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/paysession/paysession/connector/kit"
	"github.com/paysession/paysession/integration/harness"
	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/config"
	"github.com/paysession/paysession/schemas"
)

// A command kind is one unit: internal/codec/kind_<kind>.go registers it,
// and every list of the kinds outside the code that runs it is generated
// from the registered kinds or checked against them here.

// kindList is one list that must name every command kind: has says whether
// it names k.
type kindList struct {
	name string
	has  func(k codec.CommandKind) bool
}

// kindLists reads every list of the command kinds in the repository at root.
func kindLists(t *testing.T, root string) []kindList {
	t.Helper()
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	variables := map[string]string{}
	for _, v := range config.Variables() {
		variables[v.Name] = v.Default
	}
	variablesDoc, configReadme := read("internal/config/testdata/variables.md"), read("internal/config/README.md")
	chart, asyncAPI := read("helm/paysession-connector/templates/_strimzi.tpl"), read("schemas/asyncapi.yaml")
	kitKinds, fingerprints := read("connector/kit/kinds.go"), read("internal/codec/testdata/fingerprints.golden")
	schemasReadme := read("schemas/README.md")
	variable := func(k codec.CommandKind) string { return config.Prefix + "TOPIC_" + strings.ToUpper(string(k)) }
	variableRow := func(k codec.CommandKind) string {
		return fmt.Sprintf("| `%s` | `%s` | %s commands |\n", variable(k), k.DefaultTopic(), k)
	}
	goType := func(k codec.CommandKind) string {
		if c := k.New(); c != nil {
			return reflect.TypeOf(c).Elem().Name()
		}
		return "?"
	}
	return []kindList{
		{"the CommandKind enum of command_result.avsc", func(k codec.CommandKind) bool {
			return slices.Contains(schemas.Commands, schemas.Name(k))
		}},
		{"the schemas (<kind>.avsc)", func(k codec.CommandKind) bool { _, err := schemas.Get(k.SchemaName()); return err == nil }},
		{"the codec's registry", func(k codec.CommandKind) bool { return k.New() != nil }},
		{"the configuration's variables", func(k codec.CommandKind) bool {
			def, ok := variables[variable(k)]
			return ok && def == k.DefaultTopic()
		}},
		{"internal/config/testdata/variables.md", func(k codec.CommandKind) bool { return strings.Contains(variablesDoc, variableRow(k)) }},
		{"internal/config/README.md's configuration table", func(k codec.CommandKind) bool {
			return strings.Contains(configReadme, variableRow(k))
		}},
		{"the kit's default topics", func(k codec.CommandKind) bool { return kit.DefaultTopics().Commands[k] == k.DefaultTopic() }},
		{"the kit's kinds.go", func(k codec.CommandKind) bool {
			return regexp.MustCompile(fmt.Sprintf(`(?m)^\tKind%[1]s\s+= codec\.Kind%[1]s$`, goType(k))).MatchString(kitKinds)
		}},
		{"the chart's topic list (_strimzi.tpl)", func(k codec.CommandKind) bool {
			return strings.Contains(chart, fmt.Sprintf("  (list %q %q \"command\")\n", strings.ToUpper(string(k)), k.DefaultTopic()))
		}},
		{"schemas/asyncapi.yaml", func(k codec.CommandKind) bool {
			return strings.Contains(asyncAPI, "    address: "+k.DefaultTopic()+"\n") &&
				strings.Contains(asyncAPI, "    title: execute "+string(k)+" commands\n") &&
				strings.Contains(asyncAPI, "          $ref: './"+string(k)+".avsc'\n")
		}},
		{"the codec's fingerprints (testdata/fingerprints.golden)", func(k codec.CommandKind) bool {
			return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(string(k)) + ` [0-9a-f]{16}$`).MatchString(fingerprints)
		}},
		{"schemas/README.md's command kinds", func(k codec.CommandKind) bool {
			return slices.Contains(readmeKinds(t, schemasReadme), string(k))
		}},
	}
}

// TestEveryKindInEveryList: every registered command kind is in every list
// of the kinds; a kind missing from one fails, naming the list.
func TestEveryKindInEveryList(t *testing.T) {
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	lists := kindLists(t, root)
	for _, k := range codec.Kinds() {
		for _, l := range lists {
			if !l.has(k) {
				t.Errorf("command kind %s is registered but missing from %s", k, l.name)
			}
		}
	}
}

// schemasReadme is the schemas' README, whose "Command kinds: ..." sentence
// TestSchemasReadmeNamesTheKinds writes.
const schemasReadme = "schemas/README.md"

// TestSchemasReadmeNamesTheKinds keeps the README's sentence "Command kinds:
// a, b, ... ." equal to the registered kinds in their order, its paragraph
// wrapped at 100 columns; -update writes it.
func TestSchemasReadmeNamesTheKinds(t *testing.T) {
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, schemasReadme)
	text := readFile(t, path)
	m := kindsSentence.FindStringSubmatchIndex(text)
	if m == nil {
		t.Fatalf(`%s has no "Command kinds: ..." sentence`, schemasReadme)
	}
	start := strings.LastIndex(text[:m[0]], "\n\n") + 2
	end := m[1] + strings.Index(text[m[1]:], "\n\n") + 1
	names := make([]string, 0, len(codec.Kinds()))
	for _, k := range codec.Kinds() {
		names = append(names, string(k))
	}
	para := text[start:m[2]] + strings.Join(names, ", ") + text[m[3]:end]
	want := text[:start] + wrap(para, 100) + text[end:]
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if text != want {
		t.Fatalf("%s: the command kinds are not the registered ones; go test ./integration -run %s -update\n got: %s\nwant: %s",
			schemasReadme, t.Name(), text[start:end], wrap(para, 100))
	}
}

// kindsSentence matches the README's "Command kinds: ..." sentence; its
// group is the list.
var kindsSentence = regexp.MustCompile(`Command kinds: ([a-z_,\s]+)\.`)

// wrap refills a paragraph, each line as many words as fit in width.
func wrap(para string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(para) {
		switch {
		case n == 0:
		case n+1+len(w) > width:
			b.WriteString("\n")
			n = 0
		default:
			b.WriteString(" ")
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	b.WriteString("\n")
	return b.String()
}

// TestEveryListCatchesAMissingKind: a kind written nowhere is reported
// missing from every list, so no list's check passes by construction.
func TestEveryListCatchesAMissingKind(t *testing.T) {
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	const newKind = codec.CommandKind("refund_twice")
	for _, l := range kindLists(t, root) {
		if l.has(newKind) {
			t.Errorf("%s claims the unwritten kind %s", l.name, newKind)
		}
	}
}

// readmeKinds returns the kinds of the "Command kinds: a, b, ... ." sentence.
func readmeKinds(t *testing.T, readme string) []string {
	t.Helper()
	m := kindsSentence.FindStringSubmatch(readme)
	if m == nil {
		t.Fatal(`schemas/README.md has no "Command kinds: ..." sentence`)
	}
	var kinds []string
	for _, k := range strings.Split(m[1], ",") {
		kinds = append(kinds, strings.TrimSpace(k))
	}
	return kinds
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
