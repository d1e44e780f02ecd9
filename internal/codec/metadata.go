package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// Metadata is partner metadata: any JSON document, carried in Avro as a
// string holding that document. In a JSON command it is written as plain
// JSON ("metadata": {"order": 42}); a JSON string is kept as a JSON string.
type Metadata string

// NewMetadata returns the compacted JSON document raw, or an error when raw
// is not valid JSON.
func NewMetadata(raw []byte) (Metadata, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return "", errors.New("metadata is not valid JSON")
	}
	return Metadata(buf.String()), nil
}

// Raw returns the JSON document, ready for the API request body.
func (m Metadata) Raw() json.RawMessage { return json.RawMessage(m) }

// Valid reports whether m holds one valid JSON document.
func (m Metadata) Valid() bool { return json.Valid([]byte(m)) }

// MarshalJSON writes the document itself (not a quoted string).
func (m Metadata) MarshalJSON() ([]byte, error) {
	if !m.Valid() {
		return nil, errors.New("metadata is not valid JSON")
	}
	return []byte(m), nil
}

// UnmarshalJSON keeps the compacted document.
func (m *Metadata) UnmarshalJSON(b []byte) error {
	v, err := NewMetadata(b)
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Masked returns m with card data masked as a dead letter masks a JSON value
// (ProtectValue): in every string, number and member name, card numbers
// keep bin and last4 and security codes written after their name become
// "***", and every string or number holding a digit under a member named as
// a security code ("cvv", "Security_Code") becomes "***" ({"cvc_check":
// "pass"} holds no code and stays). Metadata comes back from the service as
// a command gave it, or as the service filled it: session states publish it
// masked. A document that is not valid JSON gives "" (leave it out).
func (m Metadata) Masked() Metadata {
	edits, ok := jsonEdits([]byte(m))
	if !ok {
		return ""
	}
	if edits = cardEdits(edits); len(edits) == 0 {
		return m
	}
	return Metadata(applyEdits([]byte(m), edits))
}

// cardData returns the path inside m (".note", "[2].ref", "" for the
// document itself) of the first card data that Masked masks.
func (m Metadata) cardData() (string, bool) {
	edits, _ := jsonEdits([]byte(m))
	if edits = cardEdits(edits); len(edits) > 0 {
		return edits[0].path, true
	}
	return "", false
}

// cardEdits keeps the edits that mask card data: all but those of a value
// under a security code's name that holds no digit, and so no code.
func cardEdits(edits []jsonEdit) []jsonEdit {
	out := edits[:0]
	for _, e := range edits {
		if !e.secret || strings.ContainsAny(e.value, "0123456789") {
			out = append(out, e)
		}
	}
	return out
}
