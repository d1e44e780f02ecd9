package codec

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"
)

// Avro strings are UTF-8 by the specification, but the Avro library copies their
// bytes as they come: invalid UTF-8 would reach the API as U+FFFD, where a
// JSON command with the same bytes is invalid. checkStrictStrings holds a
// decoded Avro command to the rules of strict JSON: every string valid
// UTF-8, and a metadata document (a JSON document carried as a string)
// without duplicate members or lone surrogate escapes.

// stringCheck checks the strings of one value; nil means the type holds
// none.
type stringCheck func(v reflect.Value) *strictProblem

var stringChecks sync.Map // reflect.Type -> stringCheck

// checkStrictStrings returns a *DecodeError of format f naming the first
// field of v whose string breaks the rules, or nil.
func checkStrictStrings(f Format, v any) error {
	rv := reflect.ValueOf(v)
	check := stringCheckOf(rv.Type())
	if check == nil {
		return nil
	}
	if p := check(rv); p != nil {
		return p.decodeError(f)
	}
	return nil
}

func stringCheckOf(t reflect.Type) stringCheck {
	if c, ok := stringChecks.Load(t); ok {
		return c.(stringCheck)
	}
	c, _ := stringChecks.LoadOrStore(t, buildStringCheck(t))
	return c.(stringCheck)
}

func buildStringCheck(t reflect.Type) stringCheck {
	switch {
	case t == reflect.TypeFor[Metadata]():
		return checkMetadata
	case t.Kind() == reflect.String:
		return checkString
	case t.Kind() == reflect.Pointer:
		elem := buildStringCheck(t.Elem())
		if elem == nil {
			return nil
		}
		return func(v reflect.Value) *strictProblem {
			if v.IsNil() {
				return nil
			}
			return elem(v.Elem())
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		elem := buildStringCheck(t.Elem())
		if elem == nil {
			return nil
		}
		return func(v reflect.Value) *strictProblem {
			for i := range v.Len() {
				if p := elem(v.Index(i)); p != nil {
					return p.in(fmt.Sprintf("[%d]", i))
				}
			}
			return nil
		}
	case t.Kind() == reflect.Struct:
		type field struct {
			index int
			name  string
			check stringCheck
		}
		var fields []field
		for i := range t.NumField() {
			f := t.Field(i)
			if c := buildStringCheck(f.Type); c != nil && f.IsExported() {
				fields = append(fields, field{index: i, name: avroName(f), check: c})
			}
		}
		if len(fields) == 0 {
			return nil
		}
		return func(v reflect.Value) *strictProblem {
			for _, f := range fields {
				if p := f.check(v.Field(f.index)); p != nil {
					return p.in(f.name)
				}
			}
			return nil
		}
	}
	return nil
}

// avroName returns the Avro field name of f (its avro tag), or its Go name.
func avroName(f reflect.StructField) string {
	if n, _, _ := strings.Cut(f.Tag.Get("avro"), ","); n != "" {
		return n
	}
	return f.Name
}

func checkString(v reflect.Value) *strictProblem {
	if !utf8.ValidString(v.String()) {
		return &strictProblem{reason: reasonBadUTF8}
	}
	return nil
}

func checkMetadata(v reflect.Value) *strictProblem {
	doc := v.String()
	if !utf8.ValidString(doc) {
		return &strictProblem{reason: reasonBadUTF8 + reasonInDocument}
	}
	return checkStrictDocument(doc)
}
