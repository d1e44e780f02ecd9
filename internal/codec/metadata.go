package codec

import (
	"bytes"
	"encoding/json"
	"errors"
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
