package schemas_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/paysession/paysession/schemas"
)

// The .avsc files are composed from source/: source/<name>.avsc holds the
// schema's root record and source/types/<Name>.avsc each named type the
// roots share, written once. A source names the types it uses ("Session",
// "io.paysession.v1.Instrument"); composing writes a type out in full where
// a schema first uses it and leaves the later uses as names, which is what
// Avro requires, so the composed files are exactly the files that were
// released. go generate ./schemas (this test with -update) writes them.

var update = flag.Bool("update", false, "rewrite the .avsc files from source/")

// TestFilesAreComposedFromSource keeps every committed .avsc file equal, byte
// for byte, to its composition from source/: an edit to a source shows up in
// every schema using it, and the files registries, fingerprints and foreign
// readers see change only through the sources.
func TestFilesAreComposedFromSource(t *testing.T) {
	c, err := newComposer(os.DirFS("source"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range schemas.All() {
		got, err := c.compose(string(n))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		file := string(n) + ".avsc"
		if *update {
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from its composition from source/ (%s); edit source/, then go generate ./schemas", file, firstDiff(got, want))
		}
	}
	if unused := c.unused(); len(unused) > 0 {
		t.Errorf("source/types holds types no schema uses: %v", unused)
	}
}

// TestComposerRefusesAmbiguousSources checks the rules that keep each named
// type written once: a type defined in two places, a file named otherwise
// than its type, and a name that no source defines are refused.
func TestComposerRefusesAmbiguousSources(t *testing.T) {
	rec := func(name, fieldType string) string {
		return `{"type": "record", "name": "` + name + `", "namespace": "io.paysession.v1", "fields": [{"name": "f", "type": ` + fieldType + `}]}`
	}
	tests := []struct {
		name  string
		files fstest.MapFS
		want  string
	}{
		{"inline copy of a shared type", fstest.MapFS{
			"a.avsc":       {Data: []byte(rec("A", rec("T", `"string"`)))},
			"types/T.avsc": {Data: []byte(rec("T", `"string"`))},
		}, "io.paysession.v1.T is written in both a.avsc and types/T.avsc"},
		{"type in a file of another name", fstest.MapFS{
			"a.avsc":       {Data: []byte(rec("A", `"T"`))},
			"types/U.avsc": {Data: []byte(rec("T", `"string"`))},
		}, "types/U.avsc defines T"},
		{"unknown name", fstest.MapFS{
			"a.avsc": {Data: []byte(rec("A", `"T"`))},
		}, "io.paysession.v1.T: no source defines it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := newComposer(tt.files)
			if err == nil {
				_, err = c.compose("a")
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestComposerWritesTypeOnceThenByName composes a root using a shared type
// twice, through another shared type the second time.
func TestComposerWritesTypeOnceThenByName(t *testing.T) {
	c, err := newComposer(fstest.MapFS{
		"a.avsc":       {Data: []byte(`{"type": "record", "name": "A", "fields": [{"name": "t", "type": "x.T"}, {"name": "u", "type": ["null", "x.U"]}]}`)},
		"types/T.avsc": {Data: []byte(`{"type": "enum", "name": "T", "namespace": "x", "symbols": ["a"]}`)},
		"types/U.avsc": {Data: []byte(`{"type": "record", "name": "U", "namespace": "x", "fields": [{"name": "t", "type": {"type": "array", "items": "T"}}]}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.compose("a")
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, got); err != nil {
		t.Fatal(err)
	}
	want := `{"type":"record","name":"A","fields":[{"name":"t","type":{"type":"enum","name":"T","namespace":"x","symbols":["a"]}},` +
		`{"name":"u","type":["null",{"type":"record","name":"U","namespace":"x","fields":[{"name":"t","type":{"type":"array","items":"T"}}]}]}]}`
	if compact.String() != want {
		t.Fatalf("composed\n%s\nwant\n%s", compact.String(), want)
	}
}

// composer composes schema files from their sources.
type composer struct {
	roots map[string]*node // by schema name
	types map[string]*node // by full name
	where map[string]string
	used  map[string]bool
}

// newComposer reads the sources in src and checks that no named type is
// defined in two of them.
func newComposer(src fs.FS) (*composer, error) {
	c := &composer{roots: map[string]*node{}, types: map[string]*node{}, where: map[string]string{}, used: map[string]bool{}}
	files, err := fs.Glob(src, "*.avsc")
	if err != nil {
		return nil, err
	}
	typeFiles, err := fs.Glob(src, "types/*.avsc")
	if err != nil {
		return nil, err
	}
	for _, f := range append(files, typeFiles...) {
		b, err := fs.ReadFile(src, f)
		if err != nil {
			return nil, err
		}
		n, err := parseNode(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if strings.HasPrefix(f, "types/") {
			full, ok := definedName(n, "")
			if !ok || shortName(full) != strings.TrimSuffix(path.Base(f), ".avsc") {
				return nil, fmt.Errorf("%s defines %s, not the type it is named after", f, shortName(full))
			}
			c.types[full] = n
		} else {
			c.roots[strings.TrimSuffix(f, ".avsc")] = n
		}
		if err := c.noteDefinitions(n, "", f); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// noteDefinitions records where each named type in the type n is defined and
// refuses a second definition.
func (c *composer) noteDefinitions(n *node, ns, file string) error {
	return walkDefinitions(n, ns, func(full string) error {
		if other, ok := c.where[full]; ok {
			return fmt.Errorf("%s is written in both %s and %s: keep it in one file under types/", full, other, file)
		}
		c.where[full] = file
		return nil
	})
}

// compose returns the named schema's file: its root with each named type
// written where it is first used.
func (c *composer) compose(name string) ([]byte, error) {
	root, ok := c.roots[name]
	if !ok {
		return nil, fmt.Errorf("no source/%s.avsc", name)
	}
	defined := map[string]bool{}
	n, err := c.expand(root, "", defined)
	if err != nil {
		return nil, err
	}
	var compact, out bytes.Buffer
	n.writeCompact(&compact)
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// expand returns the type n, in namespace ns, with each name of a type not
// yet defined replaced by the type's source.
func (c *composer) expand(n *node, ns string, defined map[string]bool) (*node, error) {
	if s, ok := n.str(); ok {
		if primitive[s] {
			return n, nil
		}
		full := qualify(s, ns)
		if defined[full] {
			return n, nil
		}
		t, ok := c.types[full]
		if !ok {
			return nil, fmt.Errorf("%s: no source defines it", full)
		}
		c.used[full] = true
		return c.expand(t, ns, defined)
	}
	if n.arr { // a union
		out := &node{arr: true}
		for _, b := range n.vals {
			e, err := c.expand(b, ns, defined)
			if err != nil {
				return nil, err
			}
			out.vals = append(out.vals, e)
		}
		return out, nil
	}
	typ, _ := n.get("type").str()
	switch typ {
	case "record", "error", "enum", "fixed":
		full, _ := definedName(n, ns)
		defined[full] = true
		if typ == "enum" || typ == "fixed" {
			return n, nil
		}
		fields := &node{arr: true}
		for _, f := range n.get("fields").vals {
			t, err := c.expand(f.get("type"), namespaceOf(full), defined)
			if err != nil {
				return nil, err
			}
			fields.vals = append(fields.vals, f.with("type", t))
		}
		return n.with("fields", fields), nil
	case "array", "map":
		key := map[string]string{"array": "items", "map": "values"}[typ]
		e, err := c.expand(n.get(key), ns, defined)
		if err != nil {
			return nil, err
		}
		return n.with(key, e), nil
	}
	return n, nil
}

// unused returns the types under types/ that no composed schema used.
func (c *composer) unused() []string {
	var out []string
	for full := range c.types {
		if !c.used[full] {
			out = append(out, full)
		}
	}
	return out
}

var primitive = map[string]bool{"null": true, "boolean": true, "int": true, "long": true,
	"float": true, "double": true, "bytes": true, "string": true}

// walkDefinitions calls fn with the full name of each named type the type n,
// in namespace ns, defines.
func walkDefinitions(n *node, ns string, fn func(full string) error) error {
	if n.arr {
		for _, b := range n.vals {
			if err := walkDefinitions(b, ns, fn); err != nil {
				return err
			}
		}
		return nil
	}
	if !n.obj {
		return nil
	}
	if full, ok := definedName(n, ns); ok {
		if err := fn(full); err != nil {
			return err
		}
		if f := n.get("fields"); f != nil {
			for _, field := range f.vals {
				if err := walkDefinitions(field.get("type"), namespaceOf(full), fn); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, key := range []string{"items", "values"} {
		if v := n.get(key); v != nil {
			if err := walkDefinitions(v, ns, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// definedName returns the full name of the named type n defines, in
// namespace ns.
func definedName(n *node, ns string) (string, bool) {
	switch typ, _ := n.get("type").str(); typ {
	case "record", "error", "enum", "fixed":
	default:
		return "", false
	}
	name, ok := n.get("name").str()
	if own, has := n.get("namespace").str(); has && !strings.Contains(name, ".") {
		ns = own
	}
	return qualify(name, ns), ok
}

func qualify(name, ns string) string {
	if strings.Contains(name, ".") || ns == "" {
		return name
	}
	return ns + "." + name
}

func namespaceOf(full string) string {
	if i := strings.LastIndex(full, "."); i >= 0 {
		return full[:i]
	}
	return ""
}

func shortName(full string) string { return full[strings.LastIndex(full, ".")+1:] }

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: composed %q, committed %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("composed %d lines, committed %d", len(g)-1, len(w)-1)
}

// node is a JSON value that keeps its members in their written order, so a
// composed file reads as its sources do.
type node struct {
	obj, arr bool
	keys     []string // an object's member names
	vals     []*node  // an object's member values, an array's items
	scalar   any      // string, json.Number, bool or nil
}

func parseNode(b []byte) (*node, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	n, err := decodeNode(d)
	if err == nil && d.More() {
		err = errors.New("data after the schema")
	}
	return n, err
}

func decodeNode(d *json.Decoder) (*node, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') && tok != json.Delim('[') {
		return &node{scalar: tok}, nil
	}
	n := &node{obj: tok == json.Delim('{'), arr: tok == json.Delim('[')}
	for d.More() {
		if n.obj {
			k, err := d.Token()
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, k.(string))
		}
		v, err := decodeNode(d)
		if err != nil {
			return nil, err
		}
		n.vals = append(n.vals, v)
	}
	_, err = d.Token() // the closing delimiter
	return n, err
}

func (n *node) get(key string) *node {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

func (n *node) str() (string, bool) {
	if n == nil || n.obj || n.arr {
		return "", false
	}
	s, ok := n.scalar.(string)
	return s, ok
}

// with returns a copy of the object n with member key set to v.
func (n *node) with(key string, v *node) *node {
	out := &node{obj: true, keys: n.keys, vals: append([]*node(nil), n.vals...)}
	for i, k := range n.keys {
		if k == key {
			out.vals[i] = v
		}
	}
	return out
}

func (n *node) writeCompact(b *bytes.Buffer) {
	if !n.obj && !n.arr {
		writeScalar(b, n.scalar)
		return
	}
	open, end := byte('['), byte(']')
	if n.obj {
		open, end = '{', '}'
	}
	b.WriteByte(open)
	for i, v := range n.vals {
		if i > 0 {
			b.WriteByte(',')
		}
		if n.obj {
			writeScalar(b, n.keys[i])
			b.WriteByte(':')
		}
		v.writeCompact(b)
	}
	b.WriteByte(end)
}

// writeScalar writes v as encoding/json does, without escaping HTML.
func writeScalar(b *bytes.Buffer, v any) {
	e := json.NewEncoder(b)
	e.SetEscapeHTML(false)
	_ = e.Encode(v) // a string, json.Number, bool or nil always encodes
	b.Truncate(b.Len() - 1)
}
