package codec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/twmb/avro"
)

// CompatibilityError says that data written with one schema cannot be read
// with another, naming the first field where they part.
type CompatibilityError struct {
	Field  string // dotted path in the reader schema ("[]" an array's items, "{}" a map's values); "" for the top level
	Reason string // the Avro library's explanation
}

func (e *CompatibilityError) Error() string {
	if e.Field == "" {
		return "incompatible schemas: " + e.Reason
	}
	return fmt.Sprintf("incompatible schemas at field %s: %s", e.Field, e.Reason)
}

// CheckCompatible reports whether data written with writer can be read with
// reader (Avro schema resolution). The error is a *CompatibilityError naming
// the field. Backward compatibility of a new schema is
// CheckCompatible(new, old); forward compatibility is CheckCompatible(old, new).
func CheckCompatible(reader, writer *avro.Schema) error {
	return compatibilityError(avro.CheckCompatibility(writer, reader))
}

// compatibilityError converts the Avro library's incompatibility (its path
// spells an array's items ".items" and a map's values ".values", the top
// level "(root)") into a *CompatibilityError; other errors pass as they are.
func compatibilityError(err error) error {
	var ae *avro.CompatibilityError
	if !errors.As(err, &ae) {
		return err
	}
	path := ""
	if ae.Path != "(root)" {
		for i, seg := range strings.Split(ae.Path, ".") {
			switch {
			case seg == "items" && (i > 0 || ae.Path[0] == '.'):
				path += "[]"
			case seg == "values" && (i > 0 || ae.Path[0] == '.'):
				path += "{}"
			case seg == "":
			case path == "":
				path = seg
			default:
				path += "." + seg
			}
		}
	}
	return &CompatibilityError{Field: path, Reason: fmt.Sprintf("%s (reader %s, writer %s)", ae.Detail, ae.ReaderType, ae.WriterType)}
}
