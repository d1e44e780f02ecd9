package paysim

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRuleVocabularyMatchesCode keeps the invalid_request rule vocabulary
// documented in validate.go equal to the rules the sandbox's code emits:
// every rule passed to invalid(...) or to fields.match(...) is documented,
// and every documented rule is emitted somewhere.
func TestRuleVocabularyMatchesCode(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	emitted := map[string]string{}
	calls := []*regexp.Regexp{
		regexp.MustCompile(`invalid\([^()]*(?:\([^()]*\))?[^()]*,\s*"([a-z0-9_]+)"\)`),
		regexp.MustCompile(`\.match\("[a-z0-9_]+",[^,]+,\s*re[A-Za-z0-9]+,\s*"([a-z0-9_]+)"\)`),
		regexp.MustCompile(`Code:\s*CodeInvalidRequest,\s*Description:\s*"[a-z_]+\.([a-z0-9_]+)"`),
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, re := range calls {
			for _, m := range re.FindAllStringSubmatch(string(src), -1) {
				emitted[m[1]] = f
			}
		}
	}
	src, err := os.ReadFile("validate.go")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)// Rule vocabulary.*?\n\n`).FindString(string(src))
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^//\t([a-z0-9_]+) `).FindAllStringSubmatch(block, -1) {
		documented[m[1]] = true
	}
	var undocumented, unused []string
	for r, f := range emitted {
		if !documented[r] {
			undocumented = append(undocumented, r+" ("+f+")")
		}
	}
	for r := range documented {
		if _, ok := emitted[r]; !ok {
			unused = append(unused, r)
		}
	}
	slices.Sort(undocumented)
	slices.Sort(unused)
	if len(emitted) < 10 || len(undocumented) > 0 || len(unused) > 0 {
		t.Fatalf("%d rules emitted; emitted but not documented: %v; documented but never emitted: %v", len(emitted), undocumented, unused)
	}
}
