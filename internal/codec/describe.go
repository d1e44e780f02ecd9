package codec

import (
	"encoding/json"
	"fmt"
)

// Describe renders a record as one line of JSON for people (the demo's
// --json output): {"schema":"<name>","value":{...}}. Card numbers show as
// bin****last4 and security codes as "[redacted]", so commands are safe to
// print too.
func Describe(v Record) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", v.SchemaName(), err)
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, fmt.Errorf("describe %s: %w", v.SchemaName(), err)
	}
	maskTree(tree)
	return json.Marshal(struct {
		Schema string `json:"schema"`
		Value  any    `json:"value"`
	}{string(v.SchemaName()), tree})
}

// maskTree masks the card fields of a decoded JSON tree in place.
func maskTree(node any) {
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			switch s, isString := v.(string); {
			case isString && k == "number":
				n[k] = maskPAN(s)
			case isString && k == "security_code":
				n[k] = "[redacted]"
			default:
				maskTree(v)
			}
		}
	case []any:
		for _, v := range n {
			maskTree(v)
		}
	}
}

func maskPAN(s string) string {
	if len(s) < 12 {
		return "[redacted]"
	}
	out := []byte(s)
	for i := 6; i < len(out)-4; i++ {
		out[i] = '*'
	}
	return string(out)
}
