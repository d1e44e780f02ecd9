package integration

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A figure is a measured value that more than one document quotes, such as the failover
// time after a SIGKILL: the suite that measures it states it, and the operating guide repeats
// it. Each copy is written between two HTML comments, which renderers do not show:
//
//	<!-- figure failover-sigkill -->p50 0.7 s, max 1.0 s<!-- /figure -->
//
// and every copy of a name must read the same, so a new measurement cannot update one
// document and leave the other behind.

// figureMark is one copy of a named figure; loneMark an opening or closing comment that is not
// part of one (a typo that would leave a copy unchecked).
var (
	figureMark = regexp.MustCompile(`<!--\s*figure\s+([a-z0-9-]+)\s*-->(.*?)<!--\s*/figure\s*-->`)
	loneMark   = regexp.MustCompile(`<!--\s*/?figure\b`)
)

// figureCopy is where a copy of a figure stands and what it reads.
type figureCopy struct {
	doc, value string
}

// figures returns every copy of every named figure of the documents, and the documents whose
// figure comments do not pair up.
func figures(docs map[string]string) (copies map[string][]figureCopy, unpaired []string) {
	copies = map[string][]figureCopy{}
	for doc, text := range docs {
		text = prose(text) // a marker quoted as code is not a figure
		paired := 0
		for _, m := range figureMark.FindAllStringSubmatch(text, -1) {
			copies[m[1]] = append(copies[m[1]], figureCopy{doc: doc, value: strings.TrimSpace(m[2])})
			paired += 2
		}
		if len(loneMark.FindAllString(text, -1)) != paired {
			unpaired = append(unpaired, doc)
		}
	}
	return copies, unpaired
}

// disagreements returns one line per figure whose copies do not all read the same.
func disagreements(copies map[string][]figureCopy) []string {
	var out []string
	for name, cs := range copies {
		for _, c := range cs[1:] {
			if c.value != cs[0].value {
				out = append(out, "figure "+name+": "+cs[0].doc+" says "+quote(cs[0].value)+", "+c.doc+" says "+quote(c.value))
			}
		}
	}
	slices.Sort(out)
	return out
}

func quote(s string) string { return `"` + s + `"` }

// TestDocFiguresAgree: every named figure reads the same in every document that quotes it,
// and at least one figure is quoted in two documents (else the check checks nothing).
func TestDocFiguresAgree(t *testing.T) {
	root, paths := markdownDocs(t)
	docs := map[string]string{}
	for _, p := range paths {
		docs[p] = readDoc(t, root, p)
	}
	copies, unpaired := figures(docs)
	for _, doc := range unpaired {
		t.Errorf("%s: a <!-- figure NAME --> comment without its <!-- /figure --> on the same line, or the reverse", doc)
	}
	for _, d := range disagreements(copies) {
		t.Error(d)
	}
	shared := 0
	for _, cs := range copies {
		docsOf := map[string]bool{}
		for _, c := range cs {
			docsOf[c.doc] = true
		}
		if len(docsOf) > 1 {
			shared++
		}
	}
	if shared == 0 {
		t.Error("no figure is quoted in two documents: the markers are gone or the scan is broken")
	}
}

// TestFiguresFindsDisagreement guards the check itself: two documents quoting one figure
// differently are reported, equal copies are not, and a marker left open is.
func TestFiguresFindsDisagreement(t *testing.T) {
	copies, unpaired := figures(map[string]string{
		"a.md": "results flow again <!-- figure failover -->p50 0.7 s<!-- /figure --> after the kill",
		"b.md": "| 1 | <!-- figure failover --> p50 0.3 s <!-- /figure --> | <!-- figure rss -->139 MiB<!-- /figure --> |",
		"c.md": "peak <!-- figure rss -->139 MiB<!-- /figure -->; <!-- figure open -->1 s",
		"d.md": "mark it `<!-- figure NAME -->` ... `<!-- /figure -->`; `<!-- figure rss -->1 MiB<!-- /figure -->`",
	})
	got := disagreements(copies)
	want := []string{`figure failover: a.md says "p50 0.7 s", b.md says "p50 0.3 s"`}
	if len(got) != 1 || (got[0] != want[0] && got[0] != `figure failover: b.md says "p50 0.3 s", a.md says "p50 0.7 s"`) {
		t.Errorf("disagreements = %q, want %q", got, want)
	}
	if !slices.Equal(unpaired, []string{"c.md"}) {
		t.Errorf("unpaired = %q, want [c.md]", unpaired)
	}
}
