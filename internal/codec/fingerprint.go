package codec

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/hamba/avro/v2"
)

// CanonicalForm returns the Parsing Canonical Form of s as the Avro
// specification defines it: only the attributes relevant to parsing data
// (type, name, fields, symbols, items, values, size), so logical types are
// dropped. hamba/avro's own canonical form keeps logicalType, which makes its
// fingerprints differ from those of the Java and Python libraries for any
// schema with a timestamp; single-object headers use this one instead.
func CanonicalForm(s avro.Schema) string {
	var b strings.Builder
	writeCanonical(&b, s)
	return b.String()
}

func writeCanonical(b *strings.Builder, s avro.Schema) {
	switch t := s.(type) {
	case *avro.RefSchema:
		b.WriteString(strconv.Quote(t.Schema().FullName()))
	case *avro.RecordSchema:
		b.WriteString(`{"name":` + strconv.Quote(t.FullName()) + `,"type":"record","fields":[`)
		for i, f := range t.Fields() {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"name":` + strconv.Quote(f.Name()) + `,"type":`)
			writeCanonical(b, f.Type())
			b.WriteByte('}')
		}
		b.WriteString("]}")
	case *avro.EnumSchema:
		b.WriteString(`{"name":` + strconv.Quote(t.FullName()) + `,"type":"enum","symbols":[`)
		for i, sym := range t.Symbols() {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(sym))
		}
		b.WriteString("]}")
	case *avro.FixedSchema:
		b.WriteString(`{"name":` + strconv.Quote(t.FullName()) + `,"type":"fixed","size":` + strconv.Itoa(t.Size()) + "}")
	case *avro.ArraySchema:
		b.WriteString(`{"type":"array","items":`)
		writeCanonical(b, t.Items())
		b.WriteByte('}')
	case *avro.MapSchema:
		b.WriteString(`{"type":"map","values":`)
		writeCanonical(b, t.Values())
		b.WriteByte('}')
	case *avro.UnionSchema:
		b.WriteByte('[')
		for i, u := range t.Types() {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, u)
		}
		b.WriteByte(']')
	default: // primitives, with or without a logical type
		b.WriteString(strconv.Quote(string(s.Type())))
	}
}

// crc64Empty and crc64Table implement the CRC-64-AVRO (Rabin) fingerprint of
// the Avro specification.
const crc64Empty = 0xc15d213aa4d7a795

var crc64Table = func() (t [256]uint64) {
	for i := range t {
		fp := uint64(i)
		for range 8 {
			fp = (fp >> 1) ^ (crc64Empty & -(fp & 1))
		}
		t[i] = fp
	}
	return t
}()

// Fingerprint returns the CRC-64-AVRO fingerprint of s's Parsing Canonical
// Form in the byte order of the single-object header (little-endian): the
// same value Java's SchemaNormalization and fastavro compute.
func Fingerprint(s avro.Schema) [8]byte {
	fp := uint64(crc64Empty)
	for _, c := range []byte(CanonicalForm(s)) {
		fp = (fp >> 8) ^ crc64Table[byte(fp)^c]
	}
	var out [8]byte
	binary.LittleEndian.PutUint64(out[:], fp)
	return out
}
