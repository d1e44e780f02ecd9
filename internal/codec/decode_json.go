package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/paysession/paysession/internal/sensitive"
)

// decodeJSON decodes a strict JSON command: member names that are not
// schema fields byte for byte, duplicate members, invalid UTF-8, wrong
// types, trailing data and invalid JSON are errors naming the field where
// known. checkStrictJSON reads the document first for what encoding/json
// does not check (see strict_json.go); encoding/json then decodes it and
// describes syntax errors.
func decodeJSON(value []byte, cmd Command) error {
	strictErr := checkStrictJSON(value, reflect.TypeOf(cmd))
	if strictErr != nil && strictErr != errStrictSyntax {
		return strictErr
	}
	dec := json.NewDecoder(bytes.NewReader(value))
	dec.DisallowUnknownFields()
	if err := dec.Decode(cmd); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return &DecodeError{Format: FormatJSON, Reason: "trailing data after the JSON object"}
	}
	if strictErr != nil {
		// Not JSON to the strict reader although encoding/json took it:
		// never expected, and never accepted.
		return &DecodeError{Format: FormatJSON, Reason: "invalid JSON"}
	}
	return nil
}

func jsonError(err error) *DecodeError {
	var (
		syntax  *json.SyntaxError
		typeErr *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syntax):
		return &DecodeError{Format: FormatJSON, Reason: fmt.Sprintf("invalid JSON at offset %d", syntax.Offset)}
	case errors.As(err, &typeErr):
		return &DecodeError{Format: FormatJSON, Field: sensitive.FieldPath(typeErr.Field), Reason: fmt.Sprintf("wrong type: got JSON %s, want %s", typeErr.Value, jsonKind(typeErr))}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &DecodeError{Format: FormatJSON, Reason: "truncated JSON"}
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, `json: unknown field "`); ok {
		name = strings.TrimSuffix(name, `"`)
		if seg := memberSegment(name); seg != name {
			return &DecodeError{Format: FormatJSON, Field: seg, Reason: fmt.Sprintf("unknown field (member name %q)", name)}
		}
		return &DecodeError{Format: FormatJSON, Field: name, Reason: "unknown field"}
	}
	if strings.Contains(msg, "metadata") {
		return &DecodeError{Format: FormatJSON, Field: "metadata", Reason: "not valid JSON"}
	}
	return &DecodeError{Format: FormatJSON, Reason: strings.TrimPrefix(msg, "json: ")}
}

// jsonKind names the JSON type the Go field wants, without Go type names.
func jsonKind(e *json.UnmarshalTypeError) string {
	if e.Type == nil {
		return "another type"
	}
	switch e.Type.Kind().String() {
	case "string":
		return "string"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "integer"
	case "float32", "float64":
		return "number"
	case "bool":
		return "boolean"
	case "slice", "array":
		return "array"
	case "struct", "map", "ptr":
		return "object"
	}
	return "another type"
}
