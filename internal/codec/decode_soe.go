package codec

import (
	"bytes"
	"fmt"

	"github.com/paysession/paysession/schemas"
)

// DecodeSingleObject decodes an Avro single-object encoded value into v,
// resolving the writer schema (v's current schema or a released version)
// by the header's fingerprint; the counterpart of EncodeSingleObject.
func DecodeSingleObject(value []byte, v Record) error {
	return decodeSingleObject(v.SchemaName(), value, v)
}

// decodeSingleObject decodes an Avro single-object encoded value whose
// fingerprint is our current schema name or one of its released versions.
func decodeSingleObject(name schemas.Name, value []byte, v Record) error {
	if len(value) < 10 || !bytes.Equal(value[:2], soeMagic) {
		return &DecodeError{Format: FormatSingleObject, Reason: "value shorter than the 10-byte single-object header"}
	}
	var fp [8]byte
	copy(fp[:], value[2:10])
	p, err := loadSchemas()
	if err != nil {
		return err
	}
	writer, ok := p.byFingerprint[name][fp]
	if !ok {
		return &DecodeError{Format: FormatSingleObject, Reason: fmt.Sprintf("unknown schema fingerprint %x for %s", fp, name)}
	}
	reader, derr := resolvedReader(nil, name, writer, FormatSingleObject)
	if derr != nil {
		return derr
	}
	return unmarshal(FormatSingleObject, writer, reader, value[10:], v)
}
