package integration

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoURL is how a document outside the repository's tree (an alert's runbook_url) names a
// file of the repository: checked like a relative link.
const repoURL = "https://github.com/paysession/paysession/blob/main/"

// inlineLink is a Markdown link or image, [text](target) or [text](target "title"); refLink
// a reference definition, [name]: target.
var (
	inlineLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refLink    = regexp.MustCompile(`(?m)^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
	repoLink   = regexp.MustCompile(regexp.QuoteMeta(repoURL) + `([^\s'")\]>]+)`)
)

// linkFiles are files other than Markdown whose links into the repository are checked.
var linkFiles = []string{"helm/paysession-connector/files/prometheus-rules.yaml"}

// TestDocLinks: every relative link of every Markdown file of the repository, and every link
// to the repository's own files on GitHub (the alerts' runbook_url), names a file or folder
// that exists and, with a #fragment, a heading or anchor of that document.
func TestDocLinks(t *testing.T) {
	root, docs := markdownDocs(t)
	targets := map[string]map[string]bool{} // document → its anchors, read once
	anchorsOf := func(rel string) map[string]bool {
		if a, ok := targets[rel]; ok {
			return a
		}
		a := anchors(readDoc(t, root, rel))
		targets[rel] = a
		return a
	}
	checked := 0
	check := func(from, link string) {
		checked++
		file, fragment, _ := strings.Cut(link, "#")
		var rel string
		switch {
		case strings.HasPrefix(link, repoURL):
			rel = strings.TrimPrefix(file, repoURL)
		case file == "":
			rel = from
		default:
			rel = path.Join(path.Dir(from), file)
		}
		if strings.HasPrefix(rel, "../") || rel == ".." {
			t.Errorf("%s: link %q leaves the repository", from, link)
			return
		}
		info, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Errorf("%s: link %q: %s does not exist", from, link, rel)
			return
		}
		if fragment == "" {
			return
		}
		if info.IsDir() || !strings.HasSuffix(rel, ".md") {
			t.Errorf("%s: link %q: a #fragment into %s, which is not a Markdown file", from, link, rel)
			return
		}
		if !anchorsOf(rel)[fragment] {
			t.Errorf("%s: link %q: %s has no heading or anchor #%s", from, link, rel, fragment)
		}
	}
	for _, doc := range docs {
		text := prose(readDoc(t, root, doc))
		var links []string
		for _, m := range inlineLink.FindAllStringSubmatch(text, -1) {
			links = append(links, m[1])
		}
		for _, m := range refLink.FindAllStringSubmatch(text, -1) {
			links = append(links, m[1])
		}
		for _, link := range links {
			if strings.HasPrefix(link, repoURL) || !strings.Contains(link, ":") {
				check(doc, link)
			}
		}
	}
	for _, file := range linkFiles {
		for _, m := range repoLink.FindAllStringSubmatch(readDoc(t, root, file), -1) {
			check(file, repoURL+m[1])
		}
	}
	if checked < 20 {
		t.Fatalf("checked only %d links: the scan is broken", checked)
	}
}
