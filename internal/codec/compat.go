package codec

import (
	"fmt"

	"github.com/hamba/avro/v2"
)

// CompatibilityError says that data written with one schema cannot be read
// with another, naming the first field where they part.
type CompatibilityError struct {
	Field  string // dotted path in the reader schema; "" for the top level
	Reason string // hamba/avro's explanation
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
func CheckCompatible(reader, writer avro.Schema) error {
	err := avro.NewSchemaCompatibility().Compatible(reader, writer)
	if err == nil {
		return nil
	}
	field, reason := locate(reader, writer, "")
	if reason == "" {
		reason = err.Error()
	}
	return &CompatibilityError{Field: field, Reason: reason}
}

// locate descends through records, arrays, maps and nullable unions to the
// deepest field whose reader and writer schemas are incompatible.
func locate(reader, writer avro.Schema, path string) (string, string) {
	reader, writer = deref(reader), deref(writer)
	switch r := reader.(type) {
	case *avro.RecordSchema:
		w, ok := writer.(*avro.RecordSchema)
		if !ok {
			return path, ""
		}
		return locateFields(r, w, path)
	case *avro.ArraySchema:
		if w, ok := writer.(*avro.ArraySchema); ok {
			return locate(r.Items(), w.Items(), path+"[]")
		}
	case *avro.MapSchema:
		if w, ok := writer.(*avro.MapSchema); ok {
			return locate(r.Values(), w.Values(), path+"{}")
		}
	case *avro.UnionSchema:
		if w, ok := writer.(*avro.UnionSchema); ok && len(r.Types()) == len(w.Types()) {
			for i := range r.Types() {
				if avro.NewSchemaCompatibility().Compatible(r.Types()[i], w.Types()[i]) != nil {
					return locate(r.Types()[i], w.Types()[i], path)
				}
			}
		}
	}
	return path, ""
}

func locateFields(r, w *avro.RecordSchema, path string) (string, string) {
	for _, rf := range r.Fields() {
		fp := join(path, rf.Name())
		wf := writerField(w, rf)
		if wf == nil {
			if !rf.HasDefault() {
				return fp, "field is missing in the writer schema and has no default"
			}
			continue
		}
		if err := avro.NewSchemaCompatibility().Compatible(rf.Type(), wf.Type()); err != nil {
			p, reason := locate(rf.Type(), wf.Type(), fp)
			if reason == "" {
				reason = err.Error()
			}
			return p, reason
		}
	}
	return path, ""
}

func writerField(w *avro.RecordSchema, rf *avro.Field) *avro.Field {
	for _, wf := range w.Fields() {
		if wf.Name() == rf.Name() {
			return wf
		}
		for _, a := range rf.Aliases() {
			if wf.Name() == a {
				return wf
			}
		}
	}
	return nil
}

func deref(s avro.Schema) avro.Schema {
	for {
		ref, ok := s.(*avro.RefSchema)
		if !ok {
			return s
		}
		s = ref.Schema()
	}
}
