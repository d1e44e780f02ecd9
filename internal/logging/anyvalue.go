package logging

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// redactedJSON is a value already marshalled and redacted: the JSON handler
// embeds it as JSON, the text handler prints it as text.
type redactedJSON []byte

func (r redactedJSON) MarshalJSON() ([]byte, error) { return r, nil }
func (r redactedJSON) MarshalText() ([]byte, error) { return r, nil }
func (r redactedJSON) String() string               { return string(r) }

// anyValue redacts a value of slog.KindAny. Errors and Stringers are logged
// as their redacted text; other values are marshalled to JSON — which is what
// the JSON handler would print, and where types such as sensitive.PAN emit
// their full value for the API wire — and redacted by key and content.
func (h *RedactingHandler) anyValue(x any) any {
	switch t := x.(type) {
	case nil:
		return nil
	case error:
		return RedactString(t.Error())
	case fmt.Stringer:
		return RedactString(t.String())
	case []byte:
		if utf8.Valid(t) {
			return RedactString(string(t))
		}
		return t
	}
	b, err := json.Marshal(x)
	if err != nil {
		return RedactString(fmt.Sprintf("%+v", x))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return RedactString(string(b))
	}
	out, err := json.Marshal(h.jsonTree(tree))
	if err != nil {
		return masked
	}
	return redactedJSON(out)
}

// jsonTree redacts a decoded JSON value in place.
func (h *RedactingHandler) jsonTree(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			if h.isSensitive(k) {
				t[k] = masked
				continue
			}
			t[k] = h.jsonTree(c)
		}
		return t
	case []any:
		for i, c := range t {
			t[i] = h.jsonTree(c)
		}
		return t
	case string:
		return RedactString(t)
	case json.Number:
		if s := t.String(); RedactString(s) != s {
			return RedactString(s)
		}
		return t
	}
	return v
}
