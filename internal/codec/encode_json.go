package codec

import (
	"bytes"
	"encoding/json"
)

// EncodeJSON returns cmd as a JSON command value, the form the connector
// reads (DetectFormat: FormatJSON): member names as the schema's, metadata
// as held (the compacted document, byte for byte). '<', '>' and '&' are
// written as they are: encoding/json's default turns them into \u003c,
// \u003e and \u0026, which inside metadata, a document the connector passes
// on as written, would change the bytes the service receives.
func EncodeJSON(cmd Command) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(cmd); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
