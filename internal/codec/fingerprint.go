package codec

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/twmb/avro"
)

// CanonicalForm returns the Parsing Canonical Form of s as the Avro
// specification defines it and Java's SchemaNormalization computes it: only
// the attributes relevant to parsing data (type, name, fields, symbols,
// items, values, size), so logical types are dropped. Single-object headers
// carry its fingerprint.
func CanonicalForm(s *avro.Schema) string { return string(s.Canonical()) }

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
func Fingerprint(s *avro.Schema) [8]byte { return crc64LE(s.Canonical()) }

func crc64LE(text []byte) [8]byte {
	fp := uint64(crc64Empty)
	for _, c := range text {
		fp = (fp >> 8) ^ crc64Table[byte(fp)^c]
	}
	var out [8]byte
	binary.LittleEndian.PutUint64(out[:], fp)
	return out
}

// hambaFingerprint returns the fingerprint that producers using
// hamba/avro's soe package put in their headers: the CRC-64-AVRO of hamba's
// canonical form, which keeps logical types. Decoding accepts it too, as the
// codec did while it was built on that library.
func hambaFingerprint(s *avro.Schema) [8]byte {
	var b strings.Builder
	writeHambaCanonical(&b, s.Root())
	return crc64LE([]byte(b.String()))
}

// writeHambaCanonical writes n in hamba/avro's canonical form: the Parsing
// Canonical Form with each logical type kept after its type.
func writeHambaCanonical(b *strings.Builder, n *avro.SchemaNode) {
	switch n.Type {
	case "record", "error":
		b.WriteString(`{"name":` + strconv.Quote(fullName(n)) + `,"type":"` + n.Type + `","fields":[`)
		for i := range n.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"name":` + strconv.Quote(n.Fields[i].Name) + `,"type":`)
			writeHambaCanonical(b, &n.Fields[i].Type)
			b.WriteByte('}')
		}
		b.WriteString("]}")
	case "enum":
		b.WriteString(`{"name":` + strconv.Quote(fullName(n)) + `,"type":"enum","symbols":[`)
		for i, sym := range n.Symbols {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(sym))
		}
		b.WriteString("]}")
	case "fixed":
		b.WriteString(`{"name":` + strconv.Quote(fullName(n)) + `,"type":"fixed","size":` + strconv.Itoa(n.Size) + hambaLogical(n) + "}")
	case "array":
		b.WriteString(`{"type":"array","items":`)
		writeHambaCanonical(b, n.Items)
		b.WriteByte('}')
	case "map":
		b.WriteString(`{"type":"map","values":`)
		writeHambaCanonical(b, n.Values)
		b.WriteByte('}')
	case "union":
		b.WriteByte('[')
		for i := range n.Branches {
			if i > 0 {
				b.WriteByte(',')
			}
			writeHambaCanonical(b, &n.Branches[i])
		}
		b.WriteByte(']')
	case "null", "boolean", "int", "long", "float", "double", "string", "bytes":
		if n.LogicalType == "" {
			b.WriteString(strconv.Quote(n.Type))
			return
		}
		b.WriteString(`{"type":` + strconv.Quote(n.Type) + hambaLogical(n) + "}")
	default: // a reference to a named type
		b.WriteString(strconv.Quote(n.Type))
	}
}

func hambaLogical(n *avro.SchemaNode) string {
	switch n.LogicalType {
	case "":
		return ""
	case "decimal":
		s := `,"logicalType":"decimal","precision":` + strconv.Itoa(n.Precision)
		if n.Scale > 0 {
			s += `,"scale":` + strconv.Itoa(n.Scale)
		}
		return s
	}
	return `,"logicalType":` + strconv.Quote(n.LogicalType)
}

// fullName returns the full name of a named schema node.
func fullName(n *avro.SchemaNode) string {
	if strings.Contains(n.Name, ".") || n.Namespace == "" {
		return n.Name
	}
	return n.Namespace + "." + n.Name
}
