package schemas_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paysession/paysession/schemas"
)

// TestEveryFileIsNamed checks that the .avsc files and the Name constants
// agree, so a new schema cannot be forgotten by the codec or the tests.
func TestEveryFileIsNamed(t *testing.T) {
	files, _ := filepath.Glob("*.avsc")
	var got []string
	for _, f := range files {
		got = append(got, strings.TrimSuffix(f, ".avsc"))
	}
	var want []string
	for _, n := range schemas.All() {
		want = append(want, string(n))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("files %v, names %v", got, want)
	}
}

func TestSchemasAreRecordsInOurNamespace(t *testing.T) {
	for _, n := range schemas.All() {
		text, err := schemas.Get(n)
		if err != nil {
			t.Fatal(err)
		}
		var s struct{ Type, Name, Namespace string }
		if err := json.Unmarshal([]byte(text), &s); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if s.Type != "record" || s.Namespace != "io.paysession.v1" || s.Name == "" {
			t.Errorf("%s: type %q namespace %q name %q", n, s.Type, s.Namespace, s.Name)
		}
	}
}

func TestHistory(t *testing.T) {
	for _, n := range schemas.All() {
		vs, err := schemas.History(n)
		if err != nil || len(vs) == 0 || vs[0].Version != 1 {
			t.Fatalf("%s: history %v, %v", n, len(vs), err)
		}
	}
	if _, err := schemas.History("nope"); err == nil {
		t.Fatal("History of an unknown name succeeded")
	}
	if _, err := schemas.Get("nope"); err == nil {
		t.Fatal("Get of an unknown name succeeded")
	}
}

// TestNoCardDataInOutcomes keeps full card data out of outcome schemas.
func TestNoCardDataInOutcomes(t *testing.T) {
	for _, n := range schemas.Outcomes {
		text := schemas.MustGet(n)
		for _, banned := range []string{`"number"`, `"security_code"`, `"BankCard"`, `"account"`} {
			if strings.Contains(text, banned) {
				t.Errorf("outcome schema %s contains %s", n, banned)
			}
		}
	}
	if _, err := os.Stat("history"); err != nil {
		t.Fatal(err)
	}
}
