package helm_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The chart README's Values section is generated from values.yaml: every value with its type,
// default and the comment written beside or above it, as chart READMEs list their values.

var updateValues = flag.Bool("update", false, "rewrite the chart README's Values section from values.yaml")

const valuesHeading = "## Values"

// valueRow is one row of the Values table.
type valueRow struct {
	key, kind, def, doc string
}

// valueRows walks values.yaml: a row for every value that is not a non-empty map, and for a
// map only when a comment describes it.
func valueRows(doc *yaml.Node) ([]valueRow, error) {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, os.ErrInvalid
	}
	var rows []valueRow
	var walk func(prefix string, m *yaml.Node) error
	walk = func(prefix string, m *yaml.Node) error {
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], m.Content[i+1]
			key := prefix + k.Value
			text := comment(k.HeadComment, k.LineComment, v.LineComment)
			if v.Kind == yaml.MappingNode && len(v.Content) > 0 {
				if text != "" {
					rows = append(rows, valueRow{key: key, kind: "object", doc: text})
				}
				if err := walk(key+".", v); err != nil {
					return err
				}
				continue
			}
			var value any
			if err := v.Decode(&value); err != nil {
				return err
			}
			def, err := json.Marshal(value)
			if err != nil {
				return err
			}
			rows = append(rows, valueRow{key: key, kind: kindOf(v), def: string(def), doc: text})
		}
		return nil
	}
	return rows, walk("", doc.Content[0])
}

// kindOf names a value's type as chart READMEs do.
func kindOf(v *yaml.Node) string {
	switch {
	case v.Kind == yaml.SequenceNode:
		return "list"
	case v.Kind == yaml.MappingNode:
		return "object"
	}
	switch v.Tag {
	case "!!int":
		return "int"
	case "!!float":
		return "float"
	case "!!bool":
		return "bool"
	}
	return "string"
}

// comment joins YAML comments into one table cell: prose lines joined by spaces, indented
// example lines as code.
func comment(parts ...string) string {
	var words []string
	for _, part := range parts {
		for _, line := range strings.Split(part, "\n") {
			line = strings.TrimPrefix(strings.TrimSpace(line), "#")
			if strings.TrimSpace(line) == "" {
				continue
			}
			if strings.HasPrefix(line, "   ") {
				words = append(words, "`"+strings.TrimSpace(line)+"`")
				continue
			}
			words = append(words, htmlEscaper.Replace(strings.TrimSpace(line)))
		}
	}
	return strings.ReplaceAll(strings.Join(words, " "), "|", `\|`)
}

// htmlEscaper keeps a comment's <placeholder> from reading as an HTML tag in the table.
var htmlEscaper = strings.NewReplacer("<", "&lt;", ">", "&gt;")

// renderValues renders the Values section.
func renderValues(rows []valueRow) string {
	var b strings.Builder
	b.WriteString(valuesHeading + "\n")
	b.WriteString("Every value of `values.yaml`, with its comment there (generated: `go test ./helm -run TestChartReadmeValues -update`).\n" +
		"`values.schema.json` checks them. The connector's own variables, which `env` sets: " +
		"[internal/config/README.md](../../internal/config/README.md).\n\n")
	b.WriteString("| Key | Type | Default | Description |\n|---|---|---|---|\n")
	for _, r := range rows {
		def := ""
		if r.def != "" {
			def = "`" + r.def + "`"
		}
		b.WriteString("| `" + r.key + "` | " + r.kind + " | " + def + " | " + r.doc + " |\n")
	}
	b.WriteString("\n")
	return b.String()
}

// TestChartReadmeValues keeps the chart README's Values section equal to values.yaml.
func TestChartReadmeValues(t *testing.T) {
	values, err := os.ReadFile(filepath.Join(chart, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(values, &doc); err != nil {
		t.Fatal(err)
	}
	rows, err := valueRows(&doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 50 {
		t.Fatalf("read only %d values from values.yaml: the walk is broken", len(rows))
	}
	want := renderValues(rows)
	path := filepath.Join(chart, "README.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if !strings.Contains(readme, "\n"+valuesHeading+"\n") {
		if !*updateValues {
			t.Fatalf("%s has no %q section; run go test ./helm -run TestChartReadmeValues -update", path, valuesHeading)
		}
		readme = strings.TrimRight(readme, "\n") + "\n\n" + valuesHeading + "\n"
	}
	start := strings.Index(readme, "\n"+valuesHeading+"\n") + 1
	end := len(readme)
	if j := strings.Index(readme[start+len(valuesHeading):], "\n## "); j >= 0 {
		end = start + len(valuesHeading) + j + 1
	}
	if readme[start:end] == want {
		return
	}
	if *updateValues {
		if err := os.WriteFile(path, []byte(readme[:start]+want+readme[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's %q section differs from values.yaml; run go test ./helm -run TestChartReadmeValues -update", path, valuesHeading)
}

// TestValueRows guards the walk: comments beside and above a value, nested keys, a described
// map, examples as code.
func TestValueRows(t *testing.T) {
	var doc yaml.Node
	src := "# the file\n\nreplicas: 2 # how <many>\n\n# Tracing, off\n# while empty.\ntracing:\n  endpoint: \"\"\nlist: [a] # x | y\n#   key: value\nenv: {}\n"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	rows, err := valueRows(&doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []valueRow{
		{"replicas", "int", "2", "how &lt;many&gt;"},
		{"tracing", "object", "", "Tracing, off while empty."},
		{"tracing.endpoint", "string", `""`, ""},
		{"list", "list", `["a"]`, `x \| y`},
		{"env", "object", "{}", "`key: value`"},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows = %q, want %q", rows, want)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d = %q, want %q", i, rows[i], want[i])
		}
	}
}
