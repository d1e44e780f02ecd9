package integration

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/paysession/paysession/integration/harness"
)

// The repository's Markdown documents as the link and figure checks read them.

// skippedDirs are folders whose Markdown is not the repository's: caches, build output and
// fetched dependencies.
var skippedDirs = map[string]bool{"node_modules": true, "target": true, "bin": true, "out": true}

// markdownDocs returns the repository root and the slash-separated paths, relative to it, of
// every Markdown file of the repository.
func markdownDocs(t *testing.T) (root string, docs []string) {
	t.Helper()
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || skippedDirs[d.Name()]) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			docs = append(docs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 5 {
		t.Fatalf("found only %d Markdown files under %s: the walk is broken", len(docs), root)
	}
	return root, docs
}

// readDoc returns the text of the document at the slash-separated path rel under root.
func readDoc(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// prose returns text with its code blocks and inline code spans blanked out (line breaks
// kept): links and figures are read from prose only.
func prose(text string) string {
	lines := outsideFences(text)
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(line, "    ") && !strings.HasPrefix(trimmed, "-") && !strings.HasPrefix(trimmed, "|") {
			lines[i] = "" // an indented code block
			continue
		}
		lines[i] = codeSpan.ReplaceAllString(line, "``")
	}
	return strings.Join(lines, "\n")
}

// outsideFences returns the lines of text with those of fenced code blocks, fences included,
// blanked out.
func outsideFences(text string) []string {
	lines := strings.Split(text, "\n")
	fenced := false
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fenced = !fenced
			lines[i] = ""
		} else if fenced {
			lines[i] = ""
		}
	}
	return lines
}

var codeSpan = regexp.MustCompile("`[^`]*`")

// headingLine is an ATX heading outside code.
var headingLine = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t#]*$`)

// htmlAnchor is an explicit anchor: <a id="x"> or <a name="x">.
var htmlAnchor = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)

// anchors returns the fragment identifiers a renderer of GitHub's flavour gives the document:
// one per heading (a repeated slug gets -1, -2, ...) and the explicit HTML anchors.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	// Headings are read with their code spans: their text counts in the slug.
	for _, line := range outsideFences(text) {
		if m := headingLine.FindStringSubmatch(line); m != nil {
			slug := headingSlug(m[1])
			if n := seen[slug]; n > 0 {
				out[slug+"-"+strconv.Itoa(n)] = true
			} else {
				out[slug] = true
			}
			seen[slug]++
		}
	}
	for _, m := range htmlAnchor.FindAllStringSubmatch(prose(text), -1) {
		out[m[1]] = true
	}
	return out
}

// headingSlug is GitHub's anchor of a heading: lower case, letters, digits, '-' and '_' kept,
// spaces turned into '-', everything else dropped.
func headingSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func TestHeadingSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Command pipeline (`connector/pipeline`)":  "command-pipeline-connectorpipeline",
		"Dashboard, alerts and profiles":           "dashboard-alerts-and-profiles",
		"PaysessionConsumerLagGrowing":             "paysessionconsumerlaggrowing",
		"Sessions 5–15":                            "sessions-515",
		"Codec: hamba/avro → twmb/avro (issue 38)": "codec-hambaavro--twmbavro-issue-38",
	} {
		if got := headingSlug(heading); got != want {
			t.Errorf("headingSlug(%q) = %q, want %q", heading, got, want)
		}
	}
}
