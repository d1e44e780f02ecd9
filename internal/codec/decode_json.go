package codec

import (
	"reflect"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// decodeJSON decodes a strict JSON command: member names that are not
// schema fields byte for byte, duplicate members, invalid UTF-8, lone
// surrogate escapes, wrong types (an amount that is not an integer), trailing
// data and invalid JSON are errors naming the field where known (see
// strict_json.go).
func decodeJSON(value []byte, cmd Command) error {
	if err := json.Unmarshal(value, cmd, strictOptions); err != nil {
		return strictError(err, value, reflect.TypeOf(cmd))
	}
	return nil
}

// jsonKindName names a JSON kind as a producer knows it.
func jsonKindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't', 'f':
		return "bool"
	case '"':
		return "string"
	case '0':
		return "number"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "value"
}

// goKindName names the JSON type a Go type wants, without Go type names.
func goKindName(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map, reflect.Pointer:
		return "object"
	}
	return "another type"
}
