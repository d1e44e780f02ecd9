package codec

import (
	"slices"
	"strings"
	"testing"
)

// TestMetadataSizeBound: metadata up to MaxMetadataBytes is valid, one byte
// more is invalid (rule length, naming metadata), so no command's session
// state outgrows the topics it is written to (issue 38).
func TestMetadataSizeBound(t *testing.T) {
	for _, tc := range []struct {
		name    string
		size    int
		invalid bool
	}{
		{"at the bound", MaxMetadataBytes, false},
		{"one byte over", MaxMetadataBytes + 1, true},
		{"200 KB", 200 << 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := Metadata(`"` + strings.Repeat("x", tc.size-2) + `"`) // a JSON string of tc.size bytes
			c := &InitPayout{Instrument: cardInstrument("4111111111111111"), Amount: 5, Currency: "rub", Metadata: &m}
			got := fieldsOf(c.Validate())
			if refused := slices.Contains(got, "metadata/"+RuleLength); refused != tc.invalid {
				t.Errorf("metadata of %d bytes: problems %v, want metadata/%s %v", tc.size, got, RuleLength, tc.invalid)
			}
		})
	}
}
