package helm_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/paysession/paysession/internal/codec"
	"github.com/paysession/paysession/internal/config"
)

// strimziTemplate defines the chart's topic list (paysession.topicList).
const strimziTemplate = chart + "/templates/_strimzi.tpl"

// commandRows matches the rows of the topic list that are command topics.
var commandRows = regexp.MustCompile(`(?m)^  \(list "[A-Z_]+" "[^"]+" "command"\)\n`)

// TestChartCommandTopicsAreTheKinds keeps the command rows of the chart's
// topic list equal to the topic variable of every command kind and its
// default, in the order of the kinds; -update writes them. (strimzi_test.go
// checks the rendered topics against the connector's plan with helm.)
func TestChartCommandTopicsAreTheKinds(t *testing.T) {
	b, err := os.ReadFile(strimziTemplate)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	rows := commandRows.FindAllStringIndex(text, -1)
	if len(rows) == 0 {
		t.Fatalf("%s has no command rows", strimziTemplate)
	}
	first, last := rows[0][0], rows[len(rows)-1][1]
	got, want := text[first:last], commandTopicRows(t)
	if *updateValues { // -update (declared in values_doc_test.go) rewrites every generated part of the chart
		if err := os.WriteFile(strimziTemplate, []byte(text[:first]+want+text[last:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != want {
		t.Fatalf("%s: command rows\n%s\nwant (go test ./helm -run %s -update)\n%s", strimziTemplate, got, t.Name(), want)
	}
}

// commandTopicRows are the topic list's rows of the command kinds.
func commandTopicRows(t *testing.T) string {
	t.Helper()
	defaults := map[string]string{}
	for _, v := range config.Variables() {
		defaults[v.Name] = v.Default
	}
	var b strings.Builder
	for _, k := range codec.Kinds() {
		name := strings.ToUpper(string(k))
		def, ok := defaults[config.Prefix+"TOPIC_"+name]
		if !ok {
			t.Fatalf("kind %s: no variable %sTOPIC_%s", k, config.Prefix, name)
		}
		fmt.Fprintf(&b, "  (list %q %q \"command\")\n", name, def)
	}
	return b.String()
}
